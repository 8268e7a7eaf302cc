// Original file: fleetls/v1/fleet.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { DiffDirectoryRequest as _fleetls_v1_DiffDirectoryRequest, DiffDirectoryRequest__Output as _fleetls_v1_DiffDirectoryRequest__Output } from '../../fleetls/v1/DiffDirectoryRequest.js';
import type { DiffDirectoryResponse as _fleetls_v1_DiffDirectoryResponse, DiffDirectoryResponse__Output as _fleetls_v1_DiffDirectoryResponse__Output } from '../../fleetls/v1/DiffDirectoryResponse.js';
import type { DiskUsageRequest as _fleetls_v1_DiskUsageRequest, DiskUsageRequest__Output as _fleetls_v1_DiskUsageRequest__Output } from '../../fleetls/v1/DiskUsageRequest.js';
import type { DiskUsageResponse as _fleetls_v1_DiskUsageResponse, DiskUsageResponse__Output as _fleetls_v1_DiskUsageResponse__Output } from '../../fleetls/v1/DiskUsageResponse.js';
import type { FleetStatRequest as _fleetls_v1_FleetStatRequest, FleetStatRequest__Output as _fleetls_v1_FleetStatRequest__Output } from '../../fleetls/v1/FleetStatRequest.js';
import type { FleetStatResponse as _fleetls_v1_FleetStatResponse, FleetStatResponse__Output as _fleetls_v1_FleetStatResponse__Output } from '../../fleetls/v1/FleetStatResponse.js';
import type { FleetWalkEvent as _fleetls_v1_FleetWalkEvent, FleetWalkEvent__Output as _fleetls_v1_FleetWalkEvent__Output } from '../../fleetls/v1/FleetWalkEvent.js';
import type { FleetWalkRequest as _fleetls_v1_FleetWalkRequest, FleetWalkRequest__Output as _fleetls_v1_FleetWalkRequest__Output } from '../../fleetls/v1/FleetWalkRequest.js';
import type { ListDirectoriesRequest as _fleetls_v1_ListDirectoriesRequest, ListDirectoriesRequest__Output as _fleetls_v1_ListDirectoriesRequest__Output } from '../../fleetls/v1/ListDirectoriesRequest.js';
import type { ListDirectoriesResponse as _fleetls_v1_ListDirectoriesResponse, ListDirectoriesResponse__Output as _fleetls_v1_ListDirectoriesResponse__Output } from '../../fleetls/v1/ListDirectoriesResponse.js';
import type { ListDirectoryRequest as _fleetls_v1_ListDirectoryRequest, ListDirectoryRequest__Output as _fleetls_v1_ListDirectoryRequest__Output } from '../../fleetls/v1/ListDirectoryRequest.js';
import type { ListDirectoryResponse as _fleetls_v1_ListDirectoryResponse, ListDirectoryResponse__Output as _fleetls_v1_ListDirectoryResponse__Output } from '../../fleetls/v1/ListDirectoryResponse.js';
import type { ListFilesRequest as _fleetls_v1_ListFilesRequest, ListFilesRequest__Output as _fleetls_v1_ListFilesRequest__Output } from '../../fleetls/v1/ListFilesRequest.js';
import type { ListFilesResponse as _fleetls_v1_ListFilesResponse, ListFilesResponse__Output as _fleetls_v1_ListFilesResponse__Output } from '../../fleetls/v1/ListFilesResponse.js';
import type { ListHostsRequest as _fleetls_v1_ListHostsRequest, ListHostsRequest__Output as _fleetls_v1_ListHostsRequest__Output } from '../../fleetls/v1/ListHostsRequest.js';
import type { ListHostsResponse as _fleetls_v1_ListHostsResponse, ListHostsResponse__Output as _fleetls_v1_ListHostsResponse__Output } from '../../fleetls/v1/ListHostsResponse.js';
import type { ScanStatusRequest as _fleetls_v1_ScanStatusRequest, ScanStatusRequest__Output as _fleetls_v1_ScanStatusRequest__Output } from '../../fleetls/v1/ScanStatusRequest.js';
import type { ScanStatusResponse as _fleetls_v1_ScanStatusResponse, ScanStatusResponse__Output as _fleetls_v1_ScanStatusResponse__Output } from '../../fleetls/v1/ScanStatusResponse.js';

export interface FleetClient extends grpc.Client {
  DiffDirectory(argument: _fleetls_v1_DiffDirectoryRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fleetls_v1_DiffDirectoryResponse__Output>): grpc.ClientUnaryCall;
  DiffDirectory(argument: _fleetls_v1_DiffDirectoryRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fleetls_v1_DiffDirectoryResponse__Output>): grpc.ClientUnaryCall;
  DiffDirectory(argument: _fleetls_v1_DiffDirectoryRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fleetls_v1_DiffDirectoryResponse__Output>): grpc.ClientUnaryCall;
  DiffDirectory(argument: _fleetls_v1_DiffDirectoryRequest, callback: grpc.requestCallback<_fleetls_v1_DiffDirectoryResponse__Output>): grpc.ClientUnaryCall;
  diffDirectory(argument: _fleetls_v1_DiffDirectoryRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fleetls_v1_DiffDirectoryResponse__Output>): grpc.ClientUnaryCall;
  diffDirectory(argument: _fleetls_v1_DiffDirectoryRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fleetls_v1_DiffDirectoryResponse__Output>): grpc.ClientUnaryCall;
  diffDirectory(argument: _fleetls_v1_DiffDirectoryRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fleetls_v1_DiffDirectoryResponse__Output>): grpc.ClientUnaryCall;
  diffDirectory(argument: _fleetls_v1_DiffDirectoryRequest, callback: grpc.requestCallback<_fleetls_v1_DiffDirectoryResponse__Output>): grpc.ClientUnaryCall;
  
  DiskUsage(argument: _fleetls_v1_DiskUsageRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fleetls_v1_DiskUsageResponse__Output>): grpc.ClientUnaryCall;
  DiskUsage(argument: _fleetls_v1_DiskUsageRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fleetls_v1_DiskUsageResponse__Output>): grpc.ClientUnaryCall;
  DiskUsage(argument: _fleetls_v1_DiskUsageRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fleetls_v1_DiskUsageResponse__Output>): grpc.ClientUnaryCall;
  DiskUsage(argument: _fleetls_v1_DiskUsageRequest, callback: grpc.requestCallback<_fleetls_v1_DiskUsageResponse__Output>): grpc.ClientUnaryCall;
  diskUsage(argument: _fleetls_v1_DiskUsageRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fleetls_v1_DiskUsageResponse__Output>): grpc.ClientUnaryCall;
  diskUsage(argument: _fleetls_v1_DiskUsageRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fleetls_v1_DiskUsageResponse__Output>): grpc.ClientUnaryCall;
  diskUsage(argument: _fleetls_v1_DiskUsageRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fleetls_v1_DiskUsageResponse__Output>): grpc.ClientUnaryCall;
  diskUsage(argument: _fleetls_v1_DiskUsageRequest, callback: grpc.requestCallback<_fleetls_v1_DiskUsageResponse__Output>): grpc.ClientUnaryCall;
  
  ListDirectories(argument: _fleetls_v1_ListDirectoriesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fleetls_v1_ListDirectoriesResponse__Output>): grpc.ClientUnaryCall;
  ListDirectories(argument: _fleetls_v1_ListDirectoriesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fleetls_v1_ListDirectoriesResponse__Output>): grpc.ClientUnaryCall;
  ListDirectories(argument: _fleetls_v1_ListDirectoriesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fleetls_v1_ListDirectoriesResponse__Output>): grpc.ClientUnaryCall;
  ListDirectories(argument: _fleetls_v1_ListDirectoriesRequest, callback: grpc.requestCallback<_fleetls_v1_ListDirectoriesResponse__Output>): grpc.ClientUnaryCall;
  listDirectories(argument: _fleetls_v1_ListDirectoriesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fleetls_v1_ListDirectoriesResponse__Output>): grpc.ClientUnaryCall;
  listDirectories(argument: _fleetls_v1_ListDirectoriesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fleetls_v1_ListDirectoriesResponse__Output>): grpc.ClientUnaryCall;
  listDirectories(argument: _fleetls_v1_ListDirectoriesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fleetls_v1_ListDirectoriesResponse__Output>): grpc.ClientUnaryCall;
  listDirectories(argument: _fleetls_v1_ListDirectoriesRequest, callback: grpc.requestCallback<_fleetls_v1_ListDirectoriesResponse__Output>): grpc.ClientUnaryCall;
  
  ListDirectory(argument: _fleetls_v1_ListDirectoryRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fleetls_v1_ListDirectoryResponse__Output>): grpc.ClientUnaryCall;
  ListDirectory(argument: _fleetls_v1_ListDirectoryRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fleetls_v1_ListDirectoryResponse__Output>): grpc.ClientUnaryCall;
  ListDirectory(argument: _fleetls_v1_ListDirectoryRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fleetls_v1_ListDirectoryResponse__Output>): grpc.ClientUnaryCall;
  ListDirectory(argument: _fleetls_v1_ListDirectoryRequest, callback: grpc.requestCallback<_fleetls_v1_ListDirectoryResponse__Output>): grpc.ClientUnaryCall;
  listDirectory(argument: _fleetls_v1_ListDirectoryRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fleetls_v1_ListDirectoryResponse__Output>): grpc.ClientUnaryCall;
  listDirectory(argument: _fleetls_v1_ListDirectoryRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fleetls_v1_ListDirectoryResponse__Output>): grpc.ClientUnaryCall;
  listDirectory(argument: _fleetls_v1_ListDirectoryRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fleetls_v1_ListDirectoryResponse__Output>): grpc.ClientUnaryCall;
  listDirectory(argument: _fleetls_v1_ListDirectoryRequest, callback: grpc.requestCallback<_fleetls_v1_ListDirectoryResponse__Output>): grpc.ClientUnaryCall;
  
  ListFiles(argument: _fleetls_v1_ListFilesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fleetls_v1_ListFilesResponse__Output>): grpc.ClientUnaryCall;
  ListFiles(argument: _fleetls_v1_ListFilesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fleetls_v1_ListFilesResponse__Output>): grpc.ClientUnaryCall;
  ListFiles(argument: _fleetls_v1_ListFilesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fleetls_v1_ListFilesResponse__Output>): grpc.ClientUnaryCall;
  ListFiles(argument: _fleetls_v1_ListFilesRequest, callback: grpc.requestCallback<_fleetls_v1_ListFilesResponse__Output>): grpc.ClientUnaryCall;
  listFiles(argument: _fleetls_v1_ListFilesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fleetls_v1_ListFilesResponse__Output>): grpc.ClientUnaryCall;
  listFiles(argument: _fleetls_v1_ListFilesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fleetls_v1_ListFilesResponse__Output>): grpc.ClientUnaryCall;
  listFiles(argument: _fleetls_v1_ListFilesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fleetls_v1_ListFilesResponse__Output>): grpc.ClientUnaryCall;
  listFiles(argument: _fleetls_v1_ListFilesRequest, callback: grpc.requestCallback<_fleetls_v1_ListFilesResponse__Output>): grpc.ClientUnaryCall;
  
  ListHosts(argument: _fleetls_v1_ListHostsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fleetls_v1_ListHostsResponse__Output>): grpc.ClientUnaryCall;
  ListHosts(argument: _fleetls_v1_ListHostsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fleetls_v1_ListHostsResponse__Output>): grpc.ClientUnaryCall;
  ListHosts(argument: _fleetls_v1_ListHostsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fleetls_v1_ListHostsResponse__Output>): grpc.ClientUnaryCall;
  ListHosts(argument: _fleetls_v1_ListHostsRequest, callback: grpc.requestCallback<_fleetls_v1_ListHostsResponse__Output>): grpc.ClientUnaryCall;
  listHosts(argument: _fleetls_v1_ListHostsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fleetls_v1_ListHostsResponse__Output>): grpc.ClientUnaryCall;
  listHosts(argument: _fleetls_v1_ListHostsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fleetls_v1_ListHostsResponse__Output>): grpc.ClientUnaryCall;
  listHosts(argument: _fleetls_v1_ListHostsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fleetls_v1_ListHostsResponse__Output>): grpc.ClientUnaryCall;
  listHosts(argument: _fleetls_v1_ListHostsRequest, callback: grpc.requestCallback<_fleetls_v1_ListHostsResponse__Output>): grpc.ClientUnaryCall;
  
  ScanStatus(argument: _fleetls_v1_ScanStatusRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fleetls_v1_ScanStatusResponse__Output>): grpc.ClientUnaryCall;
  ScanStatus(argument: _fleetls_v1_ScanStatusRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fleetls_v1_ScanStatusResponse__Output>): grpc.ClientUnaryCall;
  ScanStatus(argument: _fleetls_v1_ScanStatusRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fleetls_v1_ScanStatusResponse__Output>): grpc.ClientUnaryCall;
  ScanStatus(argument: _fleetls_v1_ScanStatusRequest, callback: grpc.requestCallback<_fleetls_v1_ScanStatusResponse__Output>): grpc.ClientUnaryCall;
  scanStatus(argument: _fleetls_v1_ScanStatusRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fleetls_v1_ScanStatusResponse__Output>): grpc.ClientUnaryCall;
  scanStatus(argument: _fleetls_v1_ScanStatusRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fleetls_v1_ScanStatusResponse__Output>): grpc.ClientUnaryCall;
  scanStatus(argument: _fleetls_v1_ScanStatusRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fleetls_v1_ScanStatusResponse__Output>): grpc.ClientUnaryCall;
  scanStatus(argument: _fleetls_v1_ScanStatusRequest, callback: grpc.requestCallback<_fleetls_v1_ScanStatusResponse__Output>): grpc.ClientUnaryCall;
  
  Stat(argument: _fleetls_v1_FleetStatRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fleetls_v1_FleetStatResponse__Output>): grpc.ClientUnaryCall;
  Stat(argument: _fleetls_v1_FleetStatRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fleetls_v1_FleetStatResponse__Output>): grpc.ClientUnaryCall;
  Stat(argument: _fleetls_v1_FleetStatRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fleetls_v1_FleetStatResponse__Output>): grpc.ClientUnaryCall;
  Stat(argument: _fleetls_v1_FleetStatRequest, callback: grpc.requestCallback<_fleetls_v1_FleetStatResponse__Output>): grpc.ClientUnaryCall;
  stat(argument: _fleetls_v1_FleetStatRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fleetls_v1_FleetStatResponse__Output>): grpc.ClientUnaryCall;
  stat(argument: _fleetls_v1_FleetStatRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fleetls_v1_FleetStatResponse__Output>): grpc.ClientUnaryCall;
  stat(argument: _fleetls_v1_FleetStatRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fleetls_v1_FleetStatResponse__Output>): grpc.ClientUnaryCall;
  stat(argument: _fleetls_v1_FleetStatRequest, callback: grpc.requestCallback<_fleetls_v1_FleetStatResponse__Output>): grpc.ClientUnaryCall;
  
  Walk(argument: _fleetls_v1_FleetWalkRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_fleetls_v1_FleetWalkEvent__Output>;
  Walk(argument: _fleetls_v1_FleetWalkRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_fleetls_v1_FleetWalkEvent__Output>;
  walk(argument: _fleetls_v1_FleetWalkRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_fleetls_v1_FleetWalkEvent__Output>;
  walk(argument: _fleetls_v1_FleetWalkRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_fleetls_v1_FleetWalkEvent__Output>;
  
}

export interface FleetHandlers extends grpc.UntypedServiceImplementation {
  DiffDirectory: grpc.handleUnaryCall<_fleetls_v1_DiffDirectoryRequest__Output, _fleetls_v1_DiffDirectoryResponse>;
  
  DiskUsage: grpc.handleUnaryCall<_fleetls_v1_DiskUsageRequest__Output, _fleetls_v1_DiskUsageResponse>;
  
  ListDirectories: grpc.handleUnaryCall<_fleetls_v1_ListDirectoriesRequest__Output, _fleetls_v1_ListDirectoriesResponse>;
  
  ListDirectory: grpc.handleUnaryCall<_fleetls_v1_ListDirectoryRequest__Output, _fleetls_v1_ListDirectoryResponse>;
  
  ListFiles: grpc.handleUnaryCall<_fleetls_v1_ListFilesRequest__Output, _fleetls_v1_ListFilesResponse>;
  
  ListHosts: grpc.handleUnaryCall<_fleetls_v1_ListHostsRequest__Output, _fleetls_v1_ListHostsResponse>;
  
  ScanStatus: grpc.handleUnaryCall<_fleetls_v1_ScanStatusRequest__Output, _fleetls_v1_ScanStatusResponse>;
  
  Stat: grpc.handleUnaryCall<_fleetls_v1_FleetStatRequest__Output, _fleetls_v1_FleetStatResponse>;
  
  Walk: grpc.handleServerStreamingCall<_fleetls_v1_FleetWalkRequest__Output, _fleetls_v1_FleetWalkEvent>;
  
}

export interface FleetDefinition extends grpc.ServiceDefinition {
  DiffDirectory: MethodDefinition<_fleetls_v1_DiffDirectoryRequest, _fleetls_v1_DiffDirectoryResponse, _fleetls_v1_DiffDirectoryRequest__Output, _fleetls_v1_DiffDirectoryResponse__Output>
  DiskUsage: MethodDefinition<_fleetls_v1_DiskUsageRequest, _fleetls_v1_DiskUsageResponse, _fleetls_v1_DiskUsageRequest__Output, _fleetls_v1_DiskUsageResponse__Output>
  ListDirectories: MethodDefinition<_fleetls_v1_ListDirectoriesRequest, _fleetls_v1_ListDirectoriesResponse, _fleetls_v1_ListDirectoriesRequest__Output, _fleetls_v1_ListDirectoriesResponse__Output>
  ListDirectory: MethodDefinition<_fleetls_v1_ListDirectoryRequest, _fleetls_v1_ListDirectoryResponse, _fleetls_v1_ListDirectoryRequest__Output, _fleetls_v1_ListDirectoryResponse__Output>
  ListFiles: MethodDefinition<_fleetls_v1_ListFilesRequest, _fleetls_v1_ListFilesResponse, _fleetls_v1_ListFilesRequest__Output, _fleetls_v1_ListFilesResponse__Output>
  ListHosts: MethodDefinition<_fleetls_v1_ListHostsRequest, _fleetls_v1_ListHostsResponse, _fleetls_v1_ListHostsRequest__Output, _fleetls_v1_ListHostsResponse__Output>
  ScanStatus: MethodDefinition<_fleetls_v1_ScanStatusRequest, _fleetls_v1_ScanStatusResponse, _fleetls_v1_ScanStatusRequest__Output, _fleetls_v1_ScanStatusResponse__Output>
  Stat: MethodDefinition<_fleetls_v1_FleetStatRequest, _fleetls_v1_FleetStatResponse, _fleetls_v1_FleetStatRequest__Output, _fleetls_v1_FleetStatResponse__Output>
  Walk: MethodDefinition<_fleetls_v1_FleetWalkRequest, _fleetls_v1_FleetWalkEvent, _fleetls_v1_FleetWalkRequest__Output, _fleetls_v1_FleetWalkEvent__Output>
}
