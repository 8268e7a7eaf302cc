// The closed set of fleetls error codes (errors.ts holds the class around them); apart so that
// each platform's table (errors/errno.ts, …) can name them without importing errors.ts back.

export const CODES = [
  'invalid_argument',
  'permission_denied',
  'not_found',
  'unauthenticated',
  'unavailable',
  'deadline_exceeded',
  'cancelled',
  'resource_exhausted',
  'internal',
] as const;
export type Code = (typeof CODES)[number];
