// Original file: fleetls/v1/agent.proto

import type { Truncation as _fleetls_v1_Truncation, Truncation__Output as _fleetls_v1_Truncation__Output } from '../../fleetls/v1/Truncation.js';
import type { Long } from '@grpc/proto-loader';

export interface Summary {
  'entriesSent'?: (number | string | Long);
  'entriesSeen'?: (number | string | Long);
  'entriesMatched'?: (number | string | Long);
  'truncations'?: (_fleetls_v1_Truncation)[];
  'elapsedMs'?: (number | string | Long);
  'depthLimitedDirs'?: (number | string | Long);
  'applied'?: (string)[];
}

export interface Summary__Output {
  'entriesSent': (number);
  'entriesSeen': (number);
  'entriesMatched': (number);
  'truncations': (_fleetls_v1_Truncation__Output)[];
  'elapsedMs': (number);
  'depthLimitedDirs': (number);
  'applied': (string)[];
}
