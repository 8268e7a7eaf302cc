// Original file: fleetls/v1/fleet.proto

import type { Row as _fleetls_v1_Row, Row__Output as _fleetls_v1_Row__Output } from '../../fleetls/v1/Row.js';

export interface HostRows {
  'host'?: (string);
  'rows'?: (_fleetls_v1_Row)[];
}

export interface HostRows__Output {
  'host': (string);
  'rows': (_fleetls_v1_Row__Output)[];
}
