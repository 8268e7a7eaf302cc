// Original file: fleetls/v1/agent.proto

import type { EntryType as _fleetls_v1_EntryType, EntryType__Output as _fleetls_v1_EntryType__Output } from '../../fleetls/v1/EntryType.js';
import type { EntryError as _fleetls_v1_EntryError, EntryError__Output as _fleetls_v1_EntryError__Output } from '../../fleetls/v1/EntryError.js';
import type { Long } from '@grpc/proto-loader';

export interface Entry {
  'path'?: (Buffer | Uint8Array | string);
  'type'?: (_fleetls_v1_EntryType);
  'size'?: (number | string | Long);
  'mtimeSec'?: (number | string | Long);
  'mtimeNsec'?: (number);
  'utcOffsetMin'?: (number);
  'mode'?: (number);
  'uid'?: (number);
  'gid'?: (number);
  'inode'?: (number | string | Long);
  'nlink'?: (number | string | Long);
  'depth'?: (number);
  'linkTarget'?: (Buffer | Uint8Array | string);
  'error'?: (_fleetls_v1_EntryError | null);
  'sizePartial'?: (boolean);
  'pathText'?: (string);
  'allocated'?: (number | string | Long);
  'unreadableDirs'?: (number | string | Long);
}

export interface Entry__Output {
  'path': (Buffer);
  'type': (_fleetls_v1_EntryType__Output);
  'size': (number);
  'mtimeSec': (number);
  'mtimeNsec': (number);
  'utcOffsetMin': (number);
  'mode': (number);
  'uid': (number);
  'gid': (number);
  'inode': (number);
  'nlink': (number);
  'depth': (number);
  'linkTarget': (Buffer);
  'error': (_fleetls_v1_EntryError__Output | null);
  'sizePartial': (boolean);
  'pathText': (string);
  'allocated': (number);
  'unreadableDirs': (number);
}
