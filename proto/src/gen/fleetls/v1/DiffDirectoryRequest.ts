// Original file: fleetls/v1/fleet.proto


export interface DiffDirectoryRequest {
  'host'?: (string);
  'path'?: (string);
  'depth'?: (number);
  'compare'?: (string)[];
  'maxItemsPerDir'?: (number);
  'cursor'?: (string);
  '_depth'?: "depth";
  '_maxItemsPerDir'?: "maxItemsPerDir";
}

export interface DiffDirectoryRequest__Output {
  'host': (string);
  'path': (string);
  'depth'?: (number);
  'compare': (string)[];
  'maxItemsPerDir'?: (number);
  'cursor': (string);
  '_depth'?: "depth";
  '_maxItemsPerDir'?: "maxItemsPerDir";
}
