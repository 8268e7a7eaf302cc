// Original file: fleetls/v1/agent.proto

export const ResumeRow = {
  RESUME_ROW_ENTRY: 'RESUME_ROW_ENTRY',
  RESUME_ROW_ERROR: 'RESUME_ROW_ERROR',
  RESUME_ROW_WARNING: 'RESUME_ROW_WARNING',
} as const;

export type ResumeRow =
  | 'RESUME_ROW_ENTRY'
  | 0
  | 'RESUME_ROW_ERROR'
  | 1
  | 'RESUME_ROW_WARNING'
  | 2

export type ResumeRow__Output = typeof ResumeRow[keyof typeof ResumeRow]
