// Original file: fleetls/v1/fleet.proto


export interface FleetWalkRequest {
  'host'?: (string);
  'path'?: (string);
  'maxDepth'?: (number);
  'maxItemsPerDir'?: (number);
  'dirSizes'?: (boolean);
  '_maxDepth'?: "maxDepth";
  '_maxItemsPerDir'?: "maxItemsPerDir";
}

export interface FleetWalkRequest__Output {
  'host': (string);
  'path': (string);
  'maxDepth'?: (number);
  'maxItemsPerDir'?: (number);
  'dirSizes': (boolean);
  '_maxDepth'?: "maxDepth";
  '_maxItemsPerDir'?: "maxItemsPerDir";
}
