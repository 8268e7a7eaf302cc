// Original file: fleetls/v1/agent.proto

export const ErrorCode = {
  ERROR_CODE_NONE: 'ERROR_CODE_NONE',
  ERROR_CODE_NOT_FOUND: 'ERROR_CODE_NOT_FOUND',
  ERROR_CODE_DENIED: 'ERROR_CODE_DENIED',
  ERROR_CODE_ERROR: 'ERROR_CODE_ERROR',
  ERROR_CODE_TIMEOUT: 'ERROR_CODE_TIMEOUT',
  ERROR_CODE_PRUNED: 'ERROR_CODE_PRUNED',
} as const;

export type ErrorCode =
  | 'ERROR_CODE_NONE'
  | 0
  | 'ERROR_CODE_NOT_FOUND'
  | 1
  | 'ERROR_CODE_DENIED'
  | 2
  | 'ERROR_CODE_ERROR'
  | 3
  | 'ERROR_CODE_TIMEOUT'
  | 4
  | 'ERROR_CODE_PRUNED'
  | 5

export type ErrorCode__Output = typeof ErrorCode[keyof typeof ErrorCode]
