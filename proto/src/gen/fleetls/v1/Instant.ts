// Original file: fleetls/v1/agent.proto

import type { Long } from '@grpc/proto-loader';

export interface Instant {
  'sec'?: (number | string | Long);
  'nsec'?: (number);
}

export interface Instant__Output {
  'sec': (number);
  'nsec': (number);
}
