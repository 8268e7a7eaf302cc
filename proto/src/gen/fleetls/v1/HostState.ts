// Original file: fleetls/v1/fleet.proto

import type { HostStatus as _fleetls_v1_HostStatus, HostStatus__Output as _fleetls_v1_HostStatus__Output } from '../../fleetls/v1/HostStatus.js';

export interface HostState {
  'host'?: (string);
  'state'?: (string);
  'status'?: (_fleetls_v1_HostStatus | null);
}

export interface HostState__Output {
  'host': (string);
  'state': (string);
  'status': (_fleetls_v1_HostStatus__Output | null);
}
