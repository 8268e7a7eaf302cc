// Original file: fleetls/v1/fleet.proto


export interface ListHostsRequest {
  'host'?: (string);
  'check'?: (boolean);
}

export interface ListHostsRequest__Output {
  'host': (string);
  'check': (boolean);
}
