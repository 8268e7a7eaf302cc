// Original file: fleetls/v1/agent.proto

import type { Long } from '@grpc/proto-loader';

export interface SizeBound {
  'bytes'?: (number | string | Long);
}

export interface SizeBound__Output {
  'bytes': (number);
}
