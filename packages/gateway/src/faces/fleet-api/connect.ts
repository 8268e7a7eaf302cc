// The Fleet API on the HTTP port for browsers: Connect, gRPC-Web (and gRPC over HTTP/2 where
// a client speaks it) through @connectrpc/connect-node, adapted to the same implementation
// as the gRPC server (impl.ts). Connect decodes each request into the generated protobuf-es
// message the implementation takes, and encodes the message it answers: nothing between.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Message } from '@bufbuild/protobuf';
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
import { FLEET_SERVICE_NAME, toStatus } from '@fleetls/proto';
import { Fleet, type FleetWalkEvent, type FleetWalkRequest } from '@fleetls/proto/fleet_pb';
import type { CallerAccess } from '../../grants/access.js';
import { requestAccess, requestPrincipal } from '../mcp/http-principal.js';
import { createFleetImpl, type FleetServiceDeps, NARROWED_HEADER, narrowedHeaderValue } from './impl.js';

/** Path prefix of every Fleet method on the HTTP port. */
export const FLEET_HTTP_PREFIX = `/${FLEET_SERVICE_NAME}/`;
/** Largest request message accepted (requests are small). */
const READ_MAX_BYTES = 1024 * 1024;

/** gRPC status numbers are Connect's codes. */
function connectError(err: unknown): ConnectError {
  if (err instanceof ConnectError) return err;
  const status = toStatus(err);
  return new ConnectError(status.details, status.code as number as Code, undefined, undefined, FleetError.from(err));
}

/** A producer's `send` turned into an async iterable; each `send` resolves once its event was taken. */
async function* events(
  run: (send: (e: FleetWalkEvent) => Promise<void>) => Promise<void>,
): AsyncGenerator<FleetWalkEvent> {
  const queue: { event: FleetWalkEvent; taken: () => void }[] = [];
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

/** The principal faces/mcp/http.ts found for the request (its bearer token), carried into the handler. */
const PRINCIPAL = createContextKey<string | undefined>(undefined);
/** Its grant, with --grants. */
const ACCESS = createContextKey<CallerAccess | undefined>(undefined);

/** `caller` names HTTP callers in the audit trail, as the MCP endpoint beside it does (`http:bearer`). */
export function createFleetHttpHandler(
  deps: FleetServiceDeps & { caller: string },
): (req: IncomingMessage, res: ServerResponse) => void {
  const caller = deps.caller;
  const impl = createFleetImpl(deps);

  const callOf = (ctx: HandlerContext) => {
    const access = ctx.values.get(ACCESS);
    return {
      signal: ctx.signal,
      caller: access ? `http:grant:${access.principal}` : caller,
      principal: ctx.values.get(PRINCIPAL),
      ...(access ? { access } : {}),
      onNarrowed: (note: string) => ctx.responseHeader.set(NARROWED_HEADER, narrowedHeaderValue(note)),
    };
  };
  const routes = (router: ConnectRouter) => {
    const handlers: Record<string, unknown> = {};
    for (const m of Fleet.methods) {
      if (m.methodKind === 'unary') {
        const run = impl.unary[m.name];
        handlers[m.localName] = async (req: Message, ctx: HandlerContext) => {
          try {
            return await run(req, callOf(ctx));
          } catch (err) {
            throw connectError(err);
          }
        };
      } else {
        handlers[m.localName] = (req: FleetWalkRequest, ctx: HandlerContext) => {
          const call = callOf(ctx);
          return events((send) => impl.Walk(req, call, send));
        };
      }
    }
    // The handlers are keyed by method, built from the same descriptors Connect routes by.
    router.service(Fleet, handlers as never);
  };
  return connectNodeAdapter({
    routes,
    readMaxBytes: READ_MAX_BYTES,
    contextValues: (req) =>
      createContextValues()
        .set(PRINCIPAL, requestPrincipal(req as IncomingMessage))
        .set(ACCESS, requestAccess(req as IncomingMessage)),
  });
}
