// Original file: fleetls/v1/agent.proto

import type { TruncationReason as _fleetls_v1_TruncationReason, TruncationReason__Output as _fleetls_v1_TruncationReason__Output } from '../../fleetls/v1/TruncationReason.js';
import type { Long } from '@grpc/proto-loader';

export interface Truncation {
  'dir'?: (Buffer | Uint8Array | string);
  'shown'?: (number | string | Long);
  'total'?: (number | string | Long);
  'reason'?: (_fleetls_v1_TruncationReason);
  'dirText'?: (string);
}

export interface Truncation__Output {
  'dir': (Buffer);
  'shown': (number);
  'total': (number);
  'reason': (_fleetls_v1_TruncationReason__Output);
  'dirText': (string);
}
