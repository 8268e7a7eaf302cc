// Original file: fleetls/v1/agent.proto

import type { PermKind as _fleetls_v1_PermKind, PermKind__Output as _fleetls_v1_PermKind__Output } from '../../fleetls/v1/PermKind.js';

export interface PermMatch {
  'kind'?: (_fleetls_v1_PermKind);
  'mode'?: (number);
}

export interface PermMatch__Output {
  'kind': (_fleetls_v1_PermKind__Output);
  'mode': (number);
}
