// Original file: fleetls/v1/fleet.proto


export interface ScanStatusRequest {
  'cursor'?: (string);
  'cancel'?: (boolean);
}

export interface ScanStatusRequest__Output {
  'cursor': (string);
  'cancel': (boolean);
}
