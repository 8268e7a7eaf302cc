// Original file: fleetls/v1/fleet.proto


export interface ListFilesRequest {
  'host'?: (string);
  'path'?: (string);
  'orderBy'?: (string);
  'sort'?: (string);
  'topN'?: (number);
  'maxDepth'?: (number);
  'pattern'?: (string);
  'type'?: (string);
  'startIndex'?: (number);
  'limit'?: (number);
  'cursor'?: (string);
  'minSize'?: (string);
  'maxSize'?: (string);
  'modifiedAfter'?: (string);
  'modifiedBefore'?: (string);
  'owner'?: (string);
  'group'?: (string);
  'perm'?: (string);
  'name'?: (string);
  '_topN'?: "topN";
  '_limit'?: "limit";
}

export interface ListFilesRequest__Output {
  'host': (string);
  'path': (string);
  'orderBy': (string);
  'sort': (string);
  'topN'?: (number);
  'maxDepth': (number);
  'pattern': (string);
  'type': (string);
  'startIndex': (number);
  'limit'?: (number);
  'cursor': (string);
  'minSize': (string);
  'maxSize': (string);
  'modifiedAfter': (string);
  'modifiedBefore': (string);
  'owner': (string);
  'group': (string);
  'perm': (string);
  'name': (string);
  '_topN'?: "topN";
  '_limit'?: "limit";
}
