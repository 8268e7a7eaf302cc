// Original file: fleetls/v1/fleet.proto

import type { HostState as _fleetls_v1_HostState, HostState__Output as _fleetls_v1_HostState__Output } from '../../fleetls/v1/HostState.js';
import type { HostRows as _fleetls_v1_HostRows, HostRows__Output as _fleetls_v1_HostRows__Output } from '../../fleetls/v1/HostRows.js';
import type { FleetWalkSummary as _fleetls_v1_FleetWalkSummary, FleetWalkSummary__Output as _fleetls_v1_FleetWalkSummary__Output } from '../../fleetls/v1/FleetWalkSummary.js';

export interface FleetWalkEvent {
  'host'?: (_fleetls_v1_HostState | null);
  'rows'?: (_fleetls_v1_HostRows | null);
  'summary'?: (_fleetls_v1_FleetWalkSummary | null);
  'event'?: "host"|"rows"|"summary";
}

export interface FleetWalkEvent__Output {
  'host'?: (_fleetls_v1_HostState__Output | null);
  'rows'?: (_fleetls_v1_HostRows__Output | null);
  'summary'?: (_fleetls_v1_FleetWalkSummary__Output | null);
  'event'?: "host"|"rows"|"summary";
}
