// Original file: fleetls/v1/fleet.proto

import type { DiffGroup as _fleetls_v1_DiffGroup, DiffGroup__Output as _fleetls_v1_DiffGroup__Output } from '../../fleetls/v1/DiffGroup.js';
import type { DiffDifference as _fleetls_v1_DiffDifference, DiffDifference__Output as _fleetls_v1_DiffDifference__Output } from '../../fleetls/v1/DiffDifference.js';
import type { HostTruncation as _fleetls_v1_HostTruncation, HostTruncation__Output as _fleetls_v1_HostTruncation__Output } from '../../fleetls/v1/HostTruncation.js';
import type { HostStatus as _fleetls_v1_HostStatus, HostStatus__Output as _fleetls_v1_HostStatus__Output } from '../../fleetls/v1/HostStatus.js';
import type { ScanInfo as _fleetls_v1_ScanInfo, ScanInfo__Output as _fleetls_v1_ScanInfo__Output } from '../../fleetls/v1/ScanInfo.js';
import type { Long } from '@grpc/proto-loader';

export interface DiffDirectoryResponse {
  'path'?: (string);
  'compare'?: (string)[];
  'groups'?: (_fleetls_v1_DiffGroup)[];
  'differences'?: (_fleetls_v1_DiffDifference)[];
  'startIndex'?: (number | string | Long);
  'total'?: (number | string | Long);
  'truncations'?: (_fleetls_v1_HostTruncation)[];
  'nextCursor'?: (string);
  'hosts'?: (_fleetls_v1_HostStatus)[];
  'scan'?: (_fleetls_v1_ScanInfo | null);
}

export interface DiffDirectoryResponse__Output {
  'path': (string);
  'compare': (string)[];
  'groups': (_fleetls_v1_DiffGroup__Output)[];
  'differences': (_fleetls_v1_DiffDifference__Output)[];
  'startIndex': (number);
  'total': (number);
  'truncations': (_fleetls_v1_HostTruncation__Output)[];
  'nextCursor': (string);
  'hosts': (_fleetls_v1_HostStatus__Output)[];
  'scan': (_fleetls_v1_ScanInfo__Output | null);
}
