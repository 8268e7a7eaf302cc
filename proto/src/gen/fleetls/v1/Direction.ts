// Original file: fleetls/v1/agent.proto

export const Direction = {
  DIRECTION_ASCENDING: 'DIRECTION_ASCENDING',
  DIRECTION_DESCENDING: 'DIRECTION_DESCENDING',
} as const;

export type Direction =
  | 'DIRECTION_ASCENDING'
  | 0
  | 'DIRECTION_DESCENDING'
  | 1

export type Direction__Output = typeof Direction[keyof typeof Direction]
