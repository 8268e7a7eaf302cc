// Original file: fleetls/v1/fleet.proto


export interface FleetStatRequest {
  'host'?: (string);
  'path'?: (string);
  'cursor'?: (string);
}

export interface FleetStatRequest__Output {
  'host': (string);
  'path': (string);
  'cursor': (string);
}
