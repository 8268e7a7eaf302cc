// Original file: fleetls/v1/agent.proto


export interface IdMatch {
  'id'?: (number);
  'name'?: (string);
  'by'?: "id"|"name";
}

export interface IdMatch__Output {
  'id'?: (number);
  'name'?: (string);
  'by'?: "id"|"name";
}
