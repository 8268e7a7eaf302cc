// Original file: fleetls/v1/fleet.proto

import type { HostStatus as _fleetls_v1_HostStatus, HostStatus__Output as _fleetls_v1_HostStatus__Output } from '../../fleetls/v1/HostStatus.js';
import type { HostTruncation as _fleetls_v1_HostTruncation, HostTruncation__Output as _fleetls_v1_HostTruncation__Output } from '../../fleetls/v1/HostTruncation.js';
import type { HostNote as _fleetls_v1_HostNote, HostNote__Output as _fleetls_v1_HostNote__Output } from '../../fleetls/v1/HostNote.js';
import type { Long } from '@grpc/proto-loader';

export interface FleetWalkSummary {
  'hosts'?: (_fleetls_v1_HostStatus)[];
  'truncations'?: (_fleetls_v1_HostTruncation)[];
  'notes'?: (_fleetls_v1_HostNote)[];
  'entries'?: (number | string | Long);
}

export interface FleetWalkSummary__Output {
  'hosts': (_fleetls_v1_HostStatus__Output)[];
  'truncations': (_fleetls_v1_HostTruncation__Output)[];
  'notes': (_fleetls_v1_HostNote__Output)[];
  'entries': (number);
}
