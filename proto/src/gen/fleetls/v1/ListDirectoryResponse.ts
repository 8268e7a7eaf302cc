// Original file: fleetls/v1/fleet.proto

import type { HostRow as _fleetls_v1_HostRow, HostRow__Output as _fleetls_v1_HostRow__Output } from '../../fleetls/v1/HostRow.js';
import type { HostTruncation as _fleetls_v1_HostTruncation, HostTruncation__Output as _fleetls_v1_HostTruncation__Output } from '../../fleetls/v1/HostTruncation.js';
import type { HostNote as _fleetls_v1_HostNote, HostNote__Output as _fleetls_v1_HostNote__Output } from '../../fleetls/v1/HostNote.js';
import type { HostStatus as _fleetls_v1_HostStatus, HostStatus__Output as _fleetls_v1_HostStatus__Output } from '../../fleetls/v1/HostStatus.js';
import type { ScanInfo as _fleetls_v1_ScanInfo, ScanInfo__Output as _fleetls_v1_ScanInfo__Output } from '../../fleetls/v1/ScanInfo.js';

export interface ListDirectoryResponse {
  'path'?: (string);
  'rows'?: (_fleetls_v1_HostRow)[];
  'truncations'?: (_fleetls_v1_HostTruncation)[];
  'notes'?: (_fleetls_v1_HostNote)[];
  'nextCursor'?: (string);
  'hosts'?: (_fleetls_v1_HostStatus)[];
  'scan'?: (_fleetls_v1_ScanInfo | null);
}

export interface ListDirectoryResponse__Output {
  'path': (string);
  'rows': (_fleetls_v1_HostRow__Output)[];
  'truncations': (_fleetls_v1_HostTruncation__Output)[];
  'notes': (_fleetls_v1_HostNote__Output)[];
  'nextCursor': (string);
  'hosts': (_fleetls_v1_HostStatus__Output)[];
  'scan': (_fleetls_v1_ScanInfo__Output | null);
}
