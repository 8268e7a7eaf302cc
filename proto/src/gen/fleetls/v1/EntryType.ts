// Original file: fleetls/v1/agent.proto

export const EntryType = {
  ENTRY_TYPE_UNKNOWN: 'ENTRY_TYPE_UNKNOWN',
  ENTRY_TYPE_FILE: 'ENTRY_TYPE_FILE',
  ENTRY_TYPE_DIR: 'ENTRY_TYPE_DIR',
  ENTRY_TYPE_SYMLINK: 'ENTRY_TYPE_SYMLINK',
  ENTRY_TYPE_FIFO: 'ENTRY_TYPE_FIFO',
  ENTRY_TYPE_SOCKET: 'ENTRY_TYPE_SOCKET',
  ENTRY_TYPE_CHAR: 'ENTRY_TYPE_CHAR',
  ENTRY_TYPE_BLOCK: 'ENTRY_TYPE_BLOCK',
} as const;

export type EntryType =
  | 'ENTRY_TYPE_UNKNOWN'
  | 0
  | 'ENTRY_TYPE_FILE'
  | 1
  | 'ENTRY_TYPE_DIR'
  | 2
  | 'ENTRY_TYPE_SYMLINK'
  | 3
  | 'ENTRY_TYPE_FIFO'
  | 4
  | 'ENTRY_TYPE_SOCKET'
  | 5
  | 'ENTRY_TYPE_CHAR'
  | 6
  | 'ENTRY_TYPE_BLOCK'
  | 7

export type EntryType__Output = typeof EntryType[keyof typeof EntryType]
