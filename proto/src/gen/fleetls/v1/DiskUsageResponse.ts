// Original file: fleetls/v1/fleet.proto

import type { HostEntry as _fleetls_v1_HostEntry, HostEntry__Output as _fleetls_v1_HostEntry__Output } from '../../fleetls/v1/HostEntry.js';
import type { HostTruncation as _fleetls_v1_HostTruncation, HostTruncation__Output as _fleetls_v1_HostTruncation__Output } from '../../fleetls/v1/HostTruncation.js';
import type { HostNote as _fleetls_v1_HostNote, HostNote__Output as _fleetls_v1_HostNote__Output } from '../../fleetls/v1/HostNote.js';
import type { HostStatus as _fleetls_v1_HostStatus, HostStatus__Output as _fleetls_v1_HostStatus__Output } from '../../fleetls/v1/HostStatus.js';
import type { ScanInfo as _fleetls_v1_ScanInfo, ScanInfo__Output as _fleetls_v1_ScanInfo__Output } from '../../fleetls/v1/ScanInfo.js';
import type { Long } from '@grpc/proto-loader';

export interface DiskUsageResponse {
  'path'?: (string);
  'entries'?: (_fleetls_v1_HostEntry)[];
  'startIndex'?: (number | string | Long);
  'found'?: (number | string | Long);
  'truncations'?: (_fleetls_v1_HostTruncation)[];
  'notes'?: (_fleetls_v1_HostNote)[];
  'nextCursor'?: (string);
  'hosts'?: (_fleetls_v1_HostStatus)[];
  'pathTotals'?: (_fleetls_v1_HostEntry)[];
  'scan'?: (_fleetls_v1_ScanInfo | null);
}

export interface DiskUsageResponse__Output {
  'path': (string);
  'entries': (_fleetls_v1_HostEntry__Output)[];
  'startIndex': (number);
  'found': (number);
  'truncations': (_fleetls_v1_HostTruncation__Output)[];
  'notes': (_fleetls_v1_HostNote__Output)[];
  'nextCursor': (string);
  'hosts': (_fleetls_v1_HostStatus__Output)[];
  'pathTotals': (_fleetls_v1_HostEntry__Output)[];
  'scan': (_fleetls_v1_ScanInfo__Output | null);
}
