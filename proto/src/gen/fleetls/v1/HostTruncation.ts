// Original file: fleetls/v1/fleet.proto

import type { Truncation as _fleetls_v1_Truncation, Truncation__Output as _fleetls_v1_Truncation__Output } from '../../fleetls/v1/Truncation.js';

export interface HostTruncation {
  'host'?: (string);
  'truncation'?: (_fleetls_v1_Truncation | null);
}

export interface HostTruncation__Output {
  'host': (string);
  'truncation': (_fleetls_v1_Truncation__Output | null);
}
