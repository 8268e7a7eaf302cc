// Original file: fleetls/v1/fleet.proto


export interface DiffGroup {
  'id'?: (string);
  'hosts'?: (string)[];
}

export interface DiffGroup__Output {
  'id': (string);
  'hosts': (string)[];
}
