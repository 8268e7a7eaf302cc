// Original file: fleetls/v1/fleet.proto


export interface ListDirectoriesRequest {
  'host'?: (string);
  'path'?: (string);
  'orderBy'?: (string);
  'sort'?: (string);
  'topN'?: (number);
  'cursor'?: (string);
  '_topN'?: "topN";
}

export interface ListDirectoriesRequest__Output {
  'host': (string);
  'path': (string);
  'orderBy': (string);
  'sort': (string);
  'topN'?: (number);
  'cursor': (string);
  '_topN'?: "topN";
}
