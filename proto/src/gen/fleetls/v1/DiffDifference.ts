// Original file: fleetls/v1/fleet.proto

import type { DiffValue as _fleetls_v1_DiffValue, DiffValue__Output as _fleetls_v1_DiffValue__Output } from '../../fleetls/v1/DiffValue.js';

export interface DiffDifference {
  'path'?: (Buffer | Uint8Array | string);
  'values'?: (_fleetls_v1_DiffValue)[];
  'notCompared'?: (string)[];
  'pathText'?: (string);
}

export interface DiffDifference__Output {
  'path': (Buffer);
  'values': (_fleetls_v1_DiffValue__Output)[];
  'notCompared': (string)[];
  'pathText': (string);
}
