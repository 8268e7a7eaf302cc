// Original file: fleetls/v1/agent.proto

import type { Row as _fleetls_v1_Row, Row__Output as _fleetls_v1_Row__Output } from '../../fleetls/v1/Row.js';
import type { Summary as _fleetls_v1_Summary, Summary__Output as _fleetls_v1_Summary__Output } from '../../fleetls/v1/Summary.js';
import type { Long } from '@grpc/proto-loader';

export interface WalkResponse {
  'rows'?: (_fleetls_v1_Row)[];
  'summary'?: (_fleetls_v1_Summary | null);
  'entriesSeen'?: (number | string | Long);
}

export interface WalkResponse__Output {
  'rows': (_fleetls_v1_Row__Output)[];
  'summary': (_fleetls_v1_Summary__Output | null);
  'entriesSeen': (number);
}
