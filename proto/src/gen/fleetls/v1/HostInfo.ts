// Original file: fleetls/v1/fleet.proto

import type { Label as _fleetls_v1_Label, Label__Output as _fleetls_v1_Label__Output } from '../../fleetls/v1/Label.js';
import type { HostStatus as _fleetls_v1_HostStatus, HostStatus__Output as _fleetls_v1_HostStatus__Output } from '../../fleetls/v1/HostStatus.js';

export interface HostInfo {
  'host'?: (string);
  'transport'?: (string);
  'address'?: (string);
  'labels'?: (_fleetls_v1_Label)[];
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
  'labels': (_fleetls_v1_Label__Output)[];
  'groups': (string)[];
  'sshFallback': (boolean);
  'reachable': (boolean);
  'version': (string);
  'probe': (_fleetls_v1_HostStatus__Output | null);
  'features': (string)[];
}
