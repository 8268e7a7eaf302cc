// Original file: fleetls/v1/agent.proto

import type { SizeBound as _fleetls_v1_SizeBound, SizeBound__Output as _fleetls_v1_SizeBound__Output } from '../../fleetls/v1/SizeBound.js';
import type { Instant as _fleetls_v1_Instant, Instant__Output as _fleetls_v1_Instant__Output } from '../../fleetls/v1/Instant.js';
import type { IdMatch as _fleetls_v1_IdMatch, IdMatch__Output as _fleetls_v1_IdMatch__Output } from '../../fleetls/v1/IdMatch.js';
import type { PermMatch as _fleetls_v1_PermMatch, PermMatch__Output as _fleetls_v1_PermMatch__Output } from '../../fleetls/v1/PermMatch.js';

export interface Filter {
  'minSize'?: (_fleetls_v1_SizeBound | null);
  'maxSize'?: (_fleetls_v1_SizeBound | null);
  'modifiedAfter'?: (_fleetls_v1_Instant | null);
  'modifiedBefore'?: (_fleetls_v1_Instant | null);
  'owner'?: (_fleetls_v1_IdMatch | null);
  'group'?: (_fleetls_v1_IdMatch | null);
  'perm'?: (_fleetls_v1_PermMatch | null);
  'name'?: (string);
}

export interface Filter__Output {
  'minSize': (_fleetls_v1_SizeBound__Output | null);
  'maxSize': (_fleetls_v1_SizeBound__Output | null);
  'modifiedAfter': (_fleetls_v1_Instant__Output | null);
  'modifiedBefore': (_fleetls_v1_Instant__Output | null);
  'owner': (_fleetls_v1_IdMatch__Output | null);
  'group': (_fleetls_v1_IdMatch__Output | null);
  'perm': (_fleetls_v1_PermMatch__Output | null);
  'name': (string);
}
