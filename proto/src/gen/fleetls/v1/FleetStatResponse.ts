// Original file: fleetls/v1/fleet.proto

import type { HostStat as _fleetls_v1_HostStat, HostStat__Output as _fleetls_v1_HostStat__Output } from '../../fleetls/v1/HostStat.js';
import type { HostStatus as _fleetls_v1_HostStatus, HostStatus__Output as _fleetls_v1_HostStatus__Output } from '../../fleetls/v1/HostStatus.js';
import type { ScanInfo as _fleetls_v1_ScanInfo, ScanInfo__Output as _fleetls_v1_ScanInfo__Output } from '../../fleetls/v1/ScanInfo.js';

export interface FleetStatResponse {
  'path'?: (string);
  'results'?: (_fleetls_v1_HostStat)[];
  'hosts'?: (_fleetls_v1_HostStatus)[];
  'nextCursor'?: (string);
  'scan'?: (_fleetls_v1_ScanInfo | null);
}

export interface FleetStatResponse__Output {
  'path': (string);
  'results': (_fleetls_v1_HostStat__Output)[];
  'hosts': (_fleetls_v1_HostStatus__Output)[];
  'nextCursor': (string);
  'scan': (_fleetls_v1_ScanInfo__Output | null);
}
