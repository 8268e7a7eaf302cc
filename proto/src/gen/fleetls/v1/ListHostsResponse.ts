// Original file: fleetls/v1/fleet.proto

import type { HostInfo as _fleetls_v1_HostInfo, HostInfo__Output as _fleetls_v1_HostInfo__Output } from '../../fleetls/v1/HostInfo.js';

export interface ListHostsResponse {
  'hosts'?: (_fleetls_v1_HostInfo)[];
  'checked'?: (boolean);
}

export interface ListHostsResponse__Output {
  'hosts': (_fleetls_v1_HostInfo__Output)[];
  'checked': (boolean);
}
