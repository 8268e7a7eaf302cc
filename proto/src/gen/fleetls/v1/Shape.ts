// Original file: fleetls/v1/agent.proto

export const Shape = {
  SHAPE_TREE: 'SHAPE_TREE',
  SHAPE_RANKED: 'SHAPE_RANKED',
} as const;

export type Shape =
  | 'SHAPE_TREE'
  | 0
  | 'SHAPE_RANKED'
  | 1

export type Shape__Output = typeof Shape[keyof typeof Shape]
