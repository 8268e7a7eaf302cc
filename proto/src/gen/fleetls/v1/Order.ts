// Original file: fleetls/v1/agent.proto

export const Order = {
  ORDER_NAME: 'ORDER_NAME',
  ORDER_SIZE: 'ORDER_SIZE',
  ORDER_MODIFIED: 'ORDER_MODIFIED',
} as const;

export type Order =
  | 'ORDER_NAME'
  | 0
  | 'ORDER_SIZE'
  | 1
  | 'ORDER_MODIFIED'
  | 2

export type Order__Output = typeof Order[keyof typeof Order]
