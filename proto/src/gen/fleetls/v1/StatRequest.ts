// Original file: fleetls/v1/agent.proto


export interface StatRequest {
  'path'?: (string);
  'followSymlinks'?: (boolean);
}

export interface StatRequest__Output {
  'path': (string);
  'followSymlinks': (boolean);
}
