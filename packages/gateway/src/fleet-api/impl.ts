// The one implementation of every Fleet RPC, in the contract's plain-object shapes (as
// proto-loader decodes them): each tool of the registry is the RPC its Fleet face names,
// run through runTool and presented by that face; Walk streams. The gRPC server
// (service.ts) and the Connect/gRPC-Web handler on the HTTP port (connect.ts) are adapters
// around it, so all three protocols answer alike.
import type { Fleet } from '../fleet-types.js';
import type { Logger } from '../logger.js';
import type { GatewayOptions } from '../options.js';
import { TOOLS } from '../tools/registry.js';
import { runTool } from '../tools/run-tool.js';
import type { ScanRegistry } from '../tools/scan-registry.js';
import type { ToolContext } from '../tools/tool.js';
import { requestArgs } from './args.js';
import { scanToWire } from './present.js';
import { streamWalk, WALK_INPUT, type WalkEvent } from './walk.js';

export interface FleetServiceDeps {
  fleet: Fleet;
  options: GatewayOptions;
  logger: Logger;
  /**
   * The serving gateway's scans: a fan-out RPC past its deadline answers a page of a scan its
   * next_cursor continues (none: every RPC answers whole within its deadline).
   */
  scans?: ScanRegistry;
}

/** What an adapter knows of a call: its cancellation, and who made it (for the audit line). */
export interface CallInfo {
  signal: AbortSignal;
  /** e.g. `grpc:<client certificate or peer>`, `http:bearer`. */
  caller: string;
  /** Whose scans the call reaches, when the adapter knows it better than `caller` (the HTTP port's token). */
  principal?: string;
}

export type Unary = (request: Record<string, unknown>, call: CallInfo) => Promise<object>;
/** `send` resolves when the client can take more. */
export type ServerStream = (
  request: Record<string, unknown>,
  call: CallInfo,
  send: (e: WalkEvent) => Promise<void>,
) => Promise<void>;

export interface FleetImpl {
  unary: Record<string, Unary>;
  Walk: ServerStream;
}

export function createFleetImpl(deps: FleetServiceDeps): FleetImpl {
  const { fleet, options, logger } = deps;
  const context = ({ signal, caller, principal }: CallInfo): ToolContext => ({
    fleet,
    options,
    signal,
    audit: { logger, caller },
    // A scan outlives its RPC (a closed connection does not stop it; ScanStatus cancel does),
    // and belongs to who called: the client certificate, else the bearer token's holders.
    scans: deps.scans,
    principal: `fleet-api:${principal ?? (caller.startsWith('grpc:plaintext:') ? 'grpc:bearer' : caller)}`,
  });
  const unary: Record<string, Unary> = {};
  for (const tool of TOOLS) {
    const face = tool.fleet;
    if (!face) continue;
    unary[face.method] = async (request, call) => {
      const result = await runTool(tool, requestArgs(tool.input, request), context(call));
      const out = face.present(result) as { nextCursor?: string };
      return result.scan ? { ...out, scan: scanToWire(result.scan, !out.nextCursor) } : out;
    };
  }
  return {
    unary,
    Walk: (request, call, send) => streamWalk(requestArgs(WALK_INPUT, request), context(call), send),
  };
}
