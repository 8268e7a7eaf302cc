// Original file: fleetls/v1/fleet.proto

import type { Row as _fleetls_v1_Row, Row__Output as _fleetls_v1_Row__Output } from '../../fleetls/v1/Row.js';

export interface HostRow {
  'host'?: (string);
  'row'?: (_fleetls_v1_Row | null);
}

export interface HostRow__Output {
  'host': (string);
  'row': (_fleetls_v1_Row__Output | null);
}
