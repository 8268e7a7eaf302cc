// Original file: fleetls/v1/fleet.proto


export interface DiskUsageRequest {
  'host'?: (string);
  'path'?: (string);
  'depth'?: (number);
  'topN'?: (number);
  'oneFileSystem'?: (boolean);
  'cursor'?: (string);
  '_depth'?: "depth";
  '_topN'?: "topN";
  '_oneFileSystem'?: "oneFileSystem";
}

export interface DiskUsageRequest__Output {
  'host': (string);
  'path': (string);
  'depth'?: (number);
  'topN'?: (number);
  'oneFileSystem'?: (boolean);
  'cursor': (string);
  '_depth'?: "depth";
  '_topN'?: "topN";
  '_oneFileSystem'?: "oneFileSystem";
}
