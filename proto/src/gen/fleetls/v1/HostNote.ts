// Original file: fleetls/v1/fleet.proto


export interface HostNote {
  'host'?: (string);
  'note'?: (string);
}

export interface HostNote__Output {
  'host': (string);
  'note': (string);
}
