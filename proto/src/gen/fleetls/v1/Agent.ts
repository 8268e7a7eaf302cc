// Original file: fleetls/v1/agent.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { StatRequest as _fleetls_v1_StatRequest, StatRequest__Output as _fleetls_v1_StatRequest__Output } from '../../fleetls/v1/StatRequest.js';
import type { StatResponse as _fleetls_v1_StatResponse, StatResponse__Output as _fleetls_v1_StatResponse__Output } from '../../fleetls/v1/StatResponse.js';
import type { WalkRequest as _fleetls_v1_WalkRequest, WalkRequest__Output as _fleetls_v1_WalkRequest__Output } from '../../fleetls/v1/WalkRequest.js';
import type { WalkResponse as _fleetls_v1_WalkResponse, WalkResponse__Output as _fleetls_v1_WalkResponse__Output } from '../../fleetls/v1/WalkResponse.js';

export interface AgentClient extends grpc.Client {
  Stat(argument: _fleetls_v1_StatRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fleetls_v1_StatResponse__Output>): grpc.ClientUnaryCall;
  Stat(argument: _fleetls_v1_StatRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fleetls_v1_StatResponse__Output>): grpc.ClientUnaryCall;
  Stat(argument: _fleetls_v1_StatRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fleetls_v1_StatResponse__Output>): grpc.ClientUnaryCall;
  Stat(argument: _fleetls_v1_StatRequest, callback: grpc.requestCallback<_fleetls_v1_StatResponse__Output>): grpc.ClientUnaryCall;
  stat(argument: _fleetls_v1_StatRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fleetls_v1_StatResponse__Output>): grpc.ClientUnaryCall;
  stat(argument: _fleetls_v1_StatRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fleetls_v1_StatResponse__Output>): grpc.ClientUnaryCall;
  stat(argument: _fleetls_v1_StatRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fleetls_v1_StatResponse__Output>): grpc.ClientUnaryCall;
  stat(argument: _fleetls_v1_StatRequest, callback: grpc.requestCallback<_fleetls_v1_StatResponse__Output>): grpc.ClientUnaryCall;
  
  Walk(argument: _fleetls_v1_WalkRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_fleetls_v1_WalkResponse__Output>;
  Walk(argument: _fleetls_v1_WalkRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_fleetls_v1_WalkResponse__Output>;
  walk(argument: _fleetls_v1_WalkRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_fleetls_v1_WalkResponse__Output>;
  walk(argument: _fleetls_v1_WalkRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_fleetls_v1_WalkResponse__Output>;
  
}

export interface AgentHandlers extends grpc.UntypedServiceImplementation {
  Stat: grpc.handleUnaryCall<_fleetls_v1_StatRequest__Output, _fleetls_v1_StatResponse>;
  
  Walk: grpc.handleServerStreamingCall<_fleetls_v1_WalkRequest__Output, _fleetls_v1_WalkResponse>;
  
}

export interface AgentDefinition extends grpc.ServiceDefinition {
  Stat: MethodDefinition<_fleetls_v1_StatRequest, _fleetls_v1_StatResponse, _fleetls_v1_StatRequest__Output, _fleetls_v1_StatResponse__Output>
  Walk: MethodDefinition<_fleetls_v1_WalkRequest, _fleetls_v1_WalkResponse, _fleetls_v1_WalkRequest__Output, _fleetls_v1_WalkResponse__Output>
}
