// Original file: fleetls/v1/agent.proto

import type { ErrorCode as _fleetls_v1_ErrorCode, ErrorCode__Output as _fleetls_v1_ErrorCode__Output } from '../../fleetls/v1/ErrorCode.js';

export interface EntryError {
  'code'?: (_fleetls_v1_ErrorCode);
  'detail'?: (string);
}

export interface EntryError__Output {
  'code': (_fleetls_v1_ErrorCode__Output);
  'detail': (string);
}
