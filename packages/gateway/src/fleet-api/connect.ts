// The Fleet API on the HTTP port for browsers: Connect, gRPC-Web (and gRPC over HTTP/2 where
// a client speaks it) through @connectrpc/connect-node, adapted to the same implementation
// as the gRPC server (impl.ts). Messages cross in binary: Connect's descriptors decode and
// encode the HTTP side, proto-loader's codec the implementation's side, so both protocols
// read and write exactly the same messages.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { type DescMethod, fromBinary, toBinary } from '@bufbuild/protobuf';
import {
  type Code,
  ConnectError,
  type ConnectRouter,
  createContextKey,
  createContextValues,
  type HandlerContext,
} from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { FleetError } from '@fleetls/core';
import { FLEET_SERVICE_NAME, loadFleetContract, toStatus } from '@fleetls/proto';
import { requestPrincipal } from '../http-principal.js';
import { fleetServiceDescriptor } from './connect-descriptor.js';
import { createFleetImpl, type FleetServiceDeps } from './impl.js';
import type { WalkEvent } from './walk.js';

/** Path prefix of every Fleet method on the HTTP port. */
export const FLEET_HTTP_PREFIX = `/${FLEET_SERVICE_NAME}/`;
/** Largest request message accepted (requests are small). */
const READ_MAX_BYTES = 1024 * 1024;

type Codec = {
  requestDeserialize(b: Buffer): Record<string, unknown>;
  responseSerialize(v: unknown): Buffer;
};

/** gRPC status numbers are Connect's codes. */
function connectError(err: unknown): ConnectError {
  if (err instanceof ConnectError) return err;
  const status = toStatus(err);
  return new ConnectError(status.details, status.code as number as Code, undefined, undefined, FleetError.from(err));
}

/** A producer's `send` turned into an async iterable; each `send` resolves once its event was taken. */
async function* events(run: (send: (e: WalkEvent) => Promise<void>) => Promise<void>): AsyncGenerator<WalkEvent> {
  const queue: { event: WalkEvent; taken: () => void }[] = [];
  let wake: (() => void) | undefined;
  let finished = false;
  let failure: unknown;
  run((event) => new Promise<void>((taken) => queue.push({ event, taken }) && wake?.())).then(
    () => {
      finished = true;
      wake?.();
    },
    (err: unknown) => {
      failure = err;
      finished = true;
      wake?.();
    },
  );
  try {
    for (;;) {
      const next = queue.shift();
      if (next) {
        yield next.event;
        next.taken();
        continue;
      }
      if (finished) {
        if (failure !== undefined) throw connectError(failure);
        return;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
  } finally {
    for (const rest of queue.splice(0)) rest.taken();
  }
}

/** The principal serve-http.ts found for the request (its bearer token), carried into the handler. */
const PRINCIPAL = createContextKey<string | undefined>(undefined);

/** `caller` names HTTP callers in the audit trail, as the MCP endpoint beside it does (`http:bearer`). */
export function createFleetHttpHandler(
  deps: FleetServiceDeps & { caller: string },
): (req: IncomingMessage, res: ServerResponse) => void {
  const caller = deps.caller;
  const impl = createFleetImpl(deps);
  const desc = fleetServiceDescriptor();
  // The wire edge: proto-loader types a service as any definition; its methods are the codecs.
  const codecs = loadFleetContract().packageDefinition[FLEET_SERVICE_NAME] as unknown as Record<string, Codec>;
  const decode = (m: DescMethod, req: Parameters<typeof toBinary>[1]) =>
    codecs[m.name].requestDeserialize(Buffer.from(toBinary(m.input, req)));
  const encode = (m: DescMethod, v: unknown) => fromBinary(m.output, codecs[m.name].responseSerialize(v));

  const routes = (router: ConnectRouter) => {
    const handlers: Record<string, unknown> = {};
    for (const m of desc.methods) {
      if (m.methodKind === 'unary') {
        const run = impl.unary[m.name];
        handlers[m.localName] = async (req: never, ctx: HandlerContext) => {
          try {
            const call = { signal: ctx.signal, caller, principal: ctx.values.get(PRINCIPAL) };
            return encode(m, await run(decode(m, req), call));
          } catch (err) {
            throw connectError(err);
          }
        };
      } else {
        handlers[m.localName] = async function* (req: never, ctx: HandlerContext) {
          const request = decode(m, req);
          const call = { signal: ctx.signal, caller, principal: ctx.values.get(PRINCIPAL) };
          for await (const e of events((send) => impl.Walk(request, call, send))) yield encode(m, e);
        };
      }
    }
    router.service(desc, handlers as never);
  };
  return connectNodeAdapter({
    routes,
    readMaxBytes: READ_MAX_BYTES,
    contextValues: (req) => createContextValues().set(PRINCIPAL, requestPrincipal(req as IncomingMessage)),
  });
}
