// Original file: fleetls/v1/fleet.proto

import type { HostStatus as _fleetls_v1_HostStatus, HostStatus__Output as _fleetls_v1_HostStatus__Output } from '../../fleetls/v1/HostStatus.js';

export interface HostInfo {
  'host'?: (string);
  'transport'?: (string);
  'address'?: (string);
  'labels'?: ({[key: string]: string});
  'groups'?: (string)[];
  'sshFallback'?: (boolean);
  'reachable'?: (boolean);
  'version'?: (string);
  'probe'?: (_fleetls_v1_HostStatus | null);
  'features'?: (string)[];
}

export interface HostInfo__Output {
  'host': (string);
  'transport': (string);
  'address': (string);
  'labels': ({[key: string]: string});
  'groups': (string)[];
  'sshFallback': (boolean);
  'reachable': (boolean);
  'version': (string);
  'probe': (_fleetls_v1_HostStatus__Output | null);
  'features': (string)[];
}
