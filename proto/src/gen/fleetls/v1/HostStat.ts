// Original file: fleetls/v1/fleet.proto

import type { StatResponse as _fleetls_v1_StatResponse, StatResponse__Output as _fleetls_v1_StatResponse__Output } from '../../fleetls/v1/StatResponse.js';

export interface HostStat {
  'host'?: (string);
  'stat'?: (_fleetls_v1_StatResponse | null);
  'notes'?: (string)[];
}

export interface HostStat__Output {
  'host': (string);
  'stat': (_fleetls_v1_StatResponse__Output | null);
  'notes': (string)[];
}
