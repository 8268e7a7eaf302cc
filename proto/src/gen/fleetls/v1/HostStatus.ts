// Original file: fleetls/v1/fleet.proto

import type { Long } from '@grpc/proto-loader';

export interface HostStatus {
  'host'?: (string);
  'status'?: (string);
  'via'?: (string);
  'elapsedMs'?: (number | string | Long);
  'message'?: (string);
}

export interface HostStatus__Output {
  'host': (string);
  'status': (string);
  'via': (string);
  'elapsedMs': (number);
  'message': (string);
}
