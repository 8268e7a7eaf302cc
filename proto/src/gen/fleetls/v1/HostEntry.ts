// Original file: fleetls/v1/fleet.proto

import type { Entry as _fleetls_v1_Entry, Entry__Output as _fleetls_v1_Entry__Output } from '../../fleetls/v1/Entry.js';

export interface HostEntry {
  'host'?: (string);
  'entry'?: (_fleetls_v1_Entry | null);
}

export interface HostEntry__Output {
  'host': (string);
  'entry': (_fleetls_v1_Entry__Output | null);
}
