// Original file: fleetls/v1/fleet.proto

import type { Long } from '@grpc/proto-loader';

export interface ScanInfo {
  'id'?: (string);
  'state'?: (string);
  'complete'?: (boolean);
  'hostsDone'?: (number);
  'hostsTotal'?: (number);
  'hostsDelivered'?: (number);
  'failed'?: (string)[];
  'failedCount'?: (number);
  'entriesSeen'?: (number | string | Long);
  'elapsedMs'?: (number | string | Long);
  'estimateMs'?: (number | string | Long);
  'rankingFinal'?: (boolean);
  '_estimateMs'?: "estimateMs";
  '_rankingFinal'?: "rankingFinal";
}

export interface ScanInfo__Output {
  'id': (string);
  'state': (string);
  'complete': (boolean);
  'hostsDone': (number);
  'hostsTotal': (number);
  'hostsDelivered': (number);
  'failed': (string)[];
  'failedCount': (number);
  'entriesSeen': (number);
  'elapsedMs': (number);
  'estimateMs'?: (number);
  'rankingFinal'?: (boolean);
  '_estimateMs'?: "estimateMs";
  '_rankingFinal'?: "rankingFinal";
}
