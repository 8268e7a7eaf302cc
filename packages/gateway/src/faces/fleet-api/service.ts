// fleetls.v1.Fleet on a grpc-js server: the adapter from grpc-js calls to the one
// implementation (impl.ts). grpc-js carries the calls (its interceptors, mTLS, health and
// reflection); messages are decoded and encoded by the generated protobuf-es code, as on
// the HTTP port. A call's cancellation and deadline reach every host through its
// AbortSignal; errors leave once, as gRPC statuses (invalid_argument → INVALID_ARGUMENT, …).

import { type DescMessage, fromBinary, type Message, toBinary } from '@bufbuild/protobuf';
import { FleetError } from '@fleetls/core';
import { toStatus } from '@fleetls/proto';
import { Fleet, type FleetWalkEvent, type FleetWalkRequest } from '@fleetls/proto/fleet_pb';
import { callerOf } from '@fleetls/runtime';
import * as grpc from '@grpc/grpc-js';
import { authorize } from '../../grants/authorize.js';
import { type CallInfo, createFleetImpl, type FleetServiceDeps, NARROWED_HEADER, narrowedHeaderValue } from './impl.js';

export type { FleetServiceDeps } from './impl.js';

/** An AbortSignal that aborts when the client cancels (or its deadline passes). */
function callSignal(call: grpc.ServerUnaryCall<unknown, unknown> | grpc.ServerWritableStream<unknown, unknown>): {
  signal: AbortSignal;
  done: () => void;
} {
  const ctrl = new AbortController();
  const onCancel = () => ctrl.abort(new FleetError('cancelled', 'cancelled by the client'));
  call.once('cancelled', onCancel);
  if (call.cancelled) onCancel();
  return { signal: ctrl.signal, done: () => call.off('cancelled', onCancel) };
}

function serialize(schema: DescMessage): (m: Message) => Buffer {
  return (m) => {
    const bytes = toBinary(schema, m);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  };
}

/** fleetls.v1.Fleet as grpc-js serves it, each method's codec protobuf-es's. */
function fleetServiceDefinition(): grpc.ServiceDefinition {
  const definition: Record<string, grpc.MethodDefinition<Message, Message>> = {};
  for (const m of Fleet.methods) {
    definition[m.name] = {
      path: `/${Fleet.typeName}/${m.name}`,
      requestStream: false,
      responseStream: m.methodKind === 'server_streaming',
      requestSerialize: serialize(m.input),
      requestDeserialize: (b: Buffer) => fromBinary(m.input, b),
      responseSerialize: serialize(m.output),
      responseDeserialize: (b: Buffer) => fromBinary(m.output, b),
      originalName: m.localName,
    };
  }
  return definition;
}

/**
 * Who made a call: its peer or client certificate, and with --grants the principal its bearer
 * token (or OAuth access token) names; without one the call is refused UNAUTHENTICATED (or
 * PERMISSION_DENIED for a valid access token that names no principal) before it runs.
 */
async function callInfo(
  deps: FleetServiceDeps,
  call: grpc.ServerUnaryCall<unknown, unknown> | grpc.ServerWritableStream<unknown, unknown>,
  signal: AbortSignal,
): Promise<CallInfo> {
  const caller = `grpc:${callerOf(call)}`;
  if (!deps.grants) return { signal, caller };
  const header = call.metadata.get('authorization')[0];
  const who = await authorize(deps.grants, deps.oauth, typeof header === 'string' ? header : undefined);
  if ('refused' in who) throw new FleetError(who.refused.code, who.refused.message);
  return { signal, caller: `grpc:grant:${who.access.principal}`, access: who.access };
}

export function addFleetService(server: grpc.Server, deps: FleetServiceDeps): void {
  const impl = createFleetImpl(deps);
  const handlers: grpc.UntypedServiceImplementation = {};

  for (const [method, run] of Object.entries(impl.unary)) {
    handlers[method] = (call: grpc.ServerUnaryCall<Message, Message>, callback: grpc.sendUnaryData<Message>) => {
      const { signal, done } = callSignal(call);
      callInfo(deps, call, signal)
        .then((info) =>
          run(call.request, {
            ...info,
            onNarrowed: (note) => {
              const md = new grpc.Metadata();
              md.set(NARROWED_HEADER, narrowedHeaderValue(note));
              call.sendMetadata(md);
            },
          }),
        )
        .then(
          (response) => callback(null, response),
          (err: unknown) => {
            const status = toStatus(err);
            deps.logger.info({ rpc: method, code: status.code, err: status.details }, 'call failed');
            callback(status as grpc.ServiceError);
          },
        )
        .finally(done);
    };
  }

  handlers.Walk = (call: grpc.ServerWritableStream<FleetWalkRequest, FleetWalkEvent>) => {
    const { signal, done } = callSignal(call);
    // Every host's sender waits on the one 'drain' (or the end of the call) while the client is
    // slow: a listener per blocked write would pile up on the call and its signal, all hosts long.
    let drained: Promise<void> | undefined;
    const send = (e: FleetWalkEvent): Promise<void> => {
      if (call.cancelled || call.writableEnded) return Promise.resolve();
      if (call.write(e)) return Promise.resolve();
      drained ??= new Promise<void>((resolve) => {
        const go = () => {
          call.off('drain', go);
          signal.removeEventListener('abort', go);
          drained = undefined;
          resolve();
        };
        call.once('drain', go);
        signal.addEventListener('abort', go, { once: true });
      });
      return drained;
    };
    callInfo(deps, call, signal)
      .then((info) => impl.Walk(call.request, info, send))
      .then(
        () => call.end(),
        (err: unknown) => {
          const status = toStatus(err);
          deps.logger.info({ rpc: 'Walk', code: status.code, err: status.details }, 'walk failed');
          call.emit('error', status);
        },
      )
      .finally(done);
  };

  server.addService(fleetServiceDefinition(), handlers);
}
