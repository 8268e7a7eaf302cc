// fleetls.v1.Fleet on a grpc-js server: each tool RPC runs the tool through runTool (the
// same parse → plan → collect as MCP and the CLI) and presents its domain result; Walk
// streams. A call's cancellation and deadline reach every host through its AbortSignal.
// Errors leave once, as gRPC statuses: invalid_argument → INVALID_ARGUMENT, and so on.
import { callerOf } from '@fleetls/agent';
import { FleetError } from '@fleetls/core';
import { loadFleetContract, toStatus } from '@fleetls/proto';
import type * as grpc from '@grpc/grpc-js';
import type { Fleet } from '../fleet-types.js';
import type { Logger } from '../logger.js';
import type { GatewayOptions } from '../options.js';
import { runTool } from '../tools/run-tool.js';
import type { ToolContext } from '../tools/tool.js';
import { requestArgs } from './args.js';
import { TOOL_RPCS } from './rpcs.js';
import { streamWalk, WALK_INPUT, type WalkEvent } from './walk.js';

export interface FleetServiceDeps {
  fleet: Fleet;
  options: GatewayOptions;
  logger: Logger;
}

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

export function addFleetService(server: grpc.Server, deps: FleetServiceDeps): void {
  const { fleet, options, logger } = deps;
  const context = (signal: AbortSignal, call: Parameters<typeof callerOf>[0]): ToolContext => ({
    fleet,
    options,
    signal,
    audit: { logger, caller: `grpc:${callerOf(call)}` },
  });
  const handlers: grpc.UntypedServiceImplementation = {};

  for (const { method, tool, present } of TOOL_RPCS) {
    handlers[method] = (
      call: grpc.ServerUnaryCall<Record<string, unknown>, object>,
      callback: grpc.sendUnaryData<object>,
    ) => {
      const { signal, done } = callSignal(call);
      const args = requestArgs(tool.input, call.request);
      runTool(tool, args, context(signal, call))
        .then(
          (result) => callback(null, present(result)),
          (err: unknown) => {
            const status = toStatus(err);
            if (status.code !== 0) logger.info({ rpc: method, code: status.code, err: status.details }, 'call failed');
            callback(status as grpc.ServiceError);
          },
        )
        .finally(done);
    };
  }

  handlers.Walk = (call: grpc.ServerWritableStream<Record<string, unknown>, WalkEvent>) => {
    const { signal, done } = callSignal(call);
    const send = (e: WalkEvent): Promise<void> => {
      if (call.cancelled || call.writableEnded) return Promise.resolve();
      if (call.write(e)) return Promise.resolve();
      return new Promise<void>((resolve) => {
        call.once('drain', resolve);
        signal.addEventListener('abort', () => resolve(), { once: true });
      });
    };
    streamWalk(requestArgs(WALK_INPUT, call.request), context(signal, call), send)
      .then(
        () => call.end(),
        (err: unknown) => {
          const status = toStatus(err);
          logger.info({ rpc: 'Walk', code: status.code, err: status.details }, 'walk failed');
          call.emit('error', status);
        },
      )
      .finally(done);
  };

  server.addService(loadFleetContract().proto.fleetls.v1.Fleet.service, handlers);
}
