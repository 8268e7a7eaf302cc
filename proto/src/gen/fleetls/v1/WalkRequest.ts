// Original file: fleetls/v1/agent.proto

import type { Order as _fleetls_v1_Order, Order__Output as _fleetls_v1_Order__Output } from '../../fleetls/v1/Order.js';
import type { Direction as _fleetls_v1_Direction, Direction__Output as _fleetls_v1_Direction__Output } from '../../fleetls/v1/Direction.js';
import type { Shape as _fleetls_v1_Shape, Shape__Output as _fleetls_v1_Shape__Output } from '../../fleetls/v1/Shape.js';
import type { EntryType as _fleetls_v1_EntryType, EntryType__Output as _fleetls_v1_EntryType__Output } from '../../fleetls/v1/EntryType.js';
import type { ResumeRow as _fleetls_v1_ResumeRow, ResumeRow__Output as _fleetls_v1_ResumeRow__Output } from '../../fleetls/v1/ResumeRow.js';
import type { Filter as _fleetls_v1_Filter, Filter__Output as _fleetls_v1_Filter__Output } from '../../fleetls/v1/Filter.js';

export interface WalkRequest {
  'path'?: (string);
  'maxDepth'?: (number);
  'maxItemsPerDir'?: (number);
  'capRoot'?: (boolean);
  'maxEntries'?: (number);
  'order'?: (_fleetls_v1_Order);
  'direction'?: (_fleetls_v1_Direction);
  'shape'?: (_fleetls_v1_Shape);
  'topN'?: (number);
  'offset'?: (number);
  'include'?: (string)[];
  'exclude'?: (string)[];
  'types'?: (_fleetls_v1_EntryType)[];
  'excludeHidden'?: (boolean);
  'followSymlinks'?: (boolean);
  'oneFileSystem'?: (boolean);
  'dirSizes'?: (boolean);
  'deadlineMs'?: (number);
  'after'?: (Buffer | Uint8Array | string);
  'afterRow'?: (_fleetls_v1_ResumeRow);
  'filter'?: (_fleetls_v1_Filter | null);
}

export interface WalkRequest__Output {
  'path': (string);
  'maxDepth': (number);
  'maxItemsPerDir': (number);
  'capRoot': (boolean);
  'maxEntries': (number);
  'order': (_fleetls_v1_Order__Output);
  'direction': (_fleetls_v1_Direction__Output);
  'shape': (_fleetls_v1_Shape__Output);
  'topN': (number);
  'offset': (number);
  'include': (string)[];
  'exclude': (string)[];
  'types': (_fleetls_v1_EntryType__Output)[];
  'excludeHidden': (boolean);
  'followSymlinks': (boolean);
  'oneFileSystem': (boolean);
  'dirSizes': (boolean);
  'deadlineMs': (number);
  'after': (Buffer);
  'afterRow': (_fleetls_v1_ResumeRow__Output);
  'filter': (_fleetls_v1_Filter__Output | null);
}
