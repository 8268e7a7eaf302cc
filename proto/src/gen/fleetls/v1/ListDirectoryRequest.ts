// Original file: fleetls/v1/fleet.proto


export interface ListDirectoryRequest {
  'host'?: (string);
  'path'?: (string);
  'depth'?: (number);
  'maxItemsPerDir'?: (number);
  'cursor'?: (string);
  '_depth'?: "depth";
  '_maxItemsPerDir'?: "maxItemsPerDir";
}

export interface ListDirectoryRequest__Output {
  'host': (string);
  'path': (string);
  'depth'?: (number);
  'maxItemsPerDir'?: (number);
  'cursor': (string);
  '_depth'?: "depth";
  '_maxItemsPerDir'?: "maxItemsPerDir";
}
