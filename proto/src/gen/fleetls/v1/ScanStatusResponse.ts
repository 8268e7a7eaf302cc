// Original file: fleetls/v1/fleet.proto

import type { ScanInfo as _fleetls_v1_ScanInfo, ScanInfo__Output as _fleetls_v1_ScanInfo__Output } from '../../fleetls/v1/ScanInfo.js';

export interface ScanStatusResponse {
  'scan'?: (_fleetls_v1_ScanInfo | null);
  'cancelled'?: (boolean);
}

export interface ScanStatusResponse__Output {
  'scan': (_fleetls_v1_ScanInfo__Output | null);
  'cancelled': (boolean);
}
