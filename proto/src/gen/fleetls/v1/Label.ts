// Original file: fleetls/v1/fleet.proto


export interface Label {
  'key'?: (string);
  'value'?: (string);
}

export interface Label__Output {
  'key': (string);
  'value': (string);
}
