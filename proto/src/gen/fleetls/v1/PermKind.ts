// Original file: fleetls/v1/agent.proto

export const PermKind = {
  PERM_KIND_EXACT: 'PERM_KIND_EXACT',
  PERM_KIND_ALL: 'PERM_KIND_ALL',
  PERM_KIND_ANY: 'PERM_KIND_ANY',
} as const;

export type PermKind =
  | 'PERM_KIND_EXACT'
  | 0
  | 'PERM_KIND_ALL'
  | 1
  | 'PERM_KIND_ANY'
  | 2

export type PermKind__Output = typeof PermKind[keyof typeof PermKind]
