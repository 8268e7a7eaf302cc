// Original file: fleetls/v1/agent.proto

import type { Entry as _fleetls_v1_Entry, Entry__Output as _fleetls_v1_Entry__Output } from '../../fleetls/v1/Entry.js';
import type { Truncation as _fleetls_v1_Truncation, Truncation__Output as _fleetls_v1_Truncation__Output } from '../../fleetls/v1/Truncation.js';

export interface Row {
  'entry'?: (_fleetls_v1_Entry | null);
  'truncation'?: (_fleetls_v1_Truncation | null);
  'kind'?: "entry"|"truncation";
}

export interface Row__Output {
  'entry'?: (_fleetls_v1_Entry__Output | null);
  'truncation'?: (_fleetls_v1_Truncation__Output | null);
  'kind'?: "entry"|"truncation";
}
