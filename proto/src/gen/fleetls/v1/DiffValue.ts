// Original file: fleetls/v1/fleet.proto

import type { Entry as _fleetls_v1_Entry, Entry__Output as _fleetls_v1_Entry__Output } from '../../fleetls/v1/Entry.js';

export interface DiffValue {
  'hosts'?: (string)[];
  'present'?: (boolean);
  'entry'?: (_fleetls_v1_Entry | null);
}

export interface DiffValue__Output {
  'hosts': (string)[];
  'present': (boolean);
  'entry': (_fleetls_v1_Entry__Output | null);
}
