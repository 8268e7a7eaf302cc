// Original file: fleetls/v1/agent.proto

import type { Entry as _fleetls_v1_Entry, Entry__Output as _fleetls_v1_Entry__Output } from '../../fleetls/v1/Entry.js';
import type { Long } from '@grpc/proto-loader';

export interface StatResponse {
  'entry'?: (_fleetls_v1_Entry | null);
  'owner'?: (string);
  'group'?: (string);
  'atimeSec'?: (number | string | Long);
  'atimeNsec'?: (number);
  'ctimeSec'?: (number | string | Long);
  'ctimeNsec'?: (number);
  'agentVersion'?: (string);
}

export interface StatResponse__Output {
  'entry': (_fleetls_v1_Entry__Output | null);
  'owner': (string);
  'group': (string);
  'atimeSec': (number);
  'atimeNsec': (number);
  'ctimeSec': (number);
  'ctimeNsec': (number);
  'agentVersion': (string);
}
