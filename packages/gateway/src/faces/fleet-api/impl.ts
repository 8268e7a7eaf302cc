// The one implementation of every Fleet RPC, in protobuf-es messages (the one runtime of the
// Fleet face): each tool of the registry is the RPC its Fleet face names, run through runTool
// and presented by that face; Walk streams. The gRPC server (service.ts) and the
// Connect/gRPC-Web handler on the HTTP port (connect.ts) are adapters around it that decode
// and encode with the same generated code, so all three protocols answer alike.
import { create, type DescMessage, isFieldSet, type Message, type MessageInitShape } from '@bufbuild/protobuf';
import { FleetError, invalidArgument } from '@fleetls/core';
import { Fleet, type FleetWalkEvent, type FleetWalkRequest, FleetWalkRequestSchema } from '@fleetls/proto/fleet_pb';
import type { Fleet as FleetOfHosts } from '../../fleet/fleet-types.js';
import type { GatewayOptions } from '../../fleet/options.js';
import type { CallerAccess } from '../../grants/access.js';
import type { OAuthVerifier } from '../../grants/oauth.js';
import type { Grants } from '../../grants/source.js';
import type { Logger } from '../../logger.js';
import type { ScanRegistry } from '../../scans/scan-registry.js';
import { TOOLS } from '../../tools/registry.js';
import { runTool } from '../../tools/run-tool.js';
import { scanToWire } from '../../tools/shared/fleet-present.js';
import type { ToolContext } from '../../tools/tool.js';
import { fieldName, requestArgs } from './args.js';
import { streamWalk, WALK_INPUT } from './walk.js';

export interface FleetServiceDeps {
  fleet: FleetOfHosts;
  options: GatewayOptions;
  logger: Logger;
  /**
   * The serving gateway's scans: a fan-out RPC past its deadline answers a page of a scan its
   * next_cursor continues (none: every RPC answers whole within its deadline).
   */
  scans?: ScanRegistry;
  /**
   * `--grants`: callers are the file's principals. The gRPC adapter finds each call's by its
   * bearer token (none: UNAUTHENTICATED); on the HTTP port the door has found it already.
   */
  grants?: Grants;
  /** `--oauth-issuer`: access tokens of the issuer name principals too (gRPC; the HTTP door does its own). */
  oauth?: OAuthVerifier;
}

/** What an adapter knows of a call: its cancellation, and who made it (for the audit line). */
export interface CallInfo {
  signal: AbortSignal;
  /** e.g. `grpc:<client certificate or peer>`, `http:bearer`. */
  caller: string;
  /** Whose scans the call reaches, when the adapter knows it better than `caller` (the HTTP port's token). */
  principal?: string;
  /** The caller's grant (with --grants): runTool holds the call to it. */
  access?: CallerAccess;
  /**
   * Hears how the grant narrowed the call's selector, before the answer is sent: the adapter
   * says so in a response header (`fleetls-narrowed`), the wire messages having no field for it.
   */
  onNarrowed?: (note: string) => void;
}

/** The response header a narrowed answer carries (printable ASCII: a header value is no place for a selector's bytes). */
export const NARROWED_HEADER = 'fleetls-narrowed';
export function narrowedHeaderValue(note: string): string {
  return note.replace(/[^\x20-\x7e]/g, '?');
}

export type Unary = (request: Message, call: CallInfo) => Promise<Message>;
/** `send` resolves when the client can take more. */
export type ServerStream = (
  request: FleetWalkRequest,
  call: CallInfo,
  send: (e: FleetWalkEvent) => Promise<void>,
) => Promise<void>;

export interface FleetImpl {
  /** By method name (`ListFiles`). */
  unary: Record<string, Unary>;
  Walk: ServerStream;
}

/** A set field the tool no longer takes (fleet.proto keeps it for old clients) is an error that says why, not ignored. */
function refuseRetired(retired: Record<string, string> | undefined, schema: DescMessage, request: Message): void {
  for (const [arg, why] of Object.entries(retired ?? {})) {
    const field = schema.field[fieldName(arg)];
    if (field && isFieldSet(request, field)) throw invalidArgument(`${arg}: ${why}`);
  }
}

export function createFleetImpl(deps: FleetServiceDeps): FleetImpl {
  const { fleet, options, logger } = deps;
  const context = ({ signal, caller, principal, access }: CallInfo): ToolContext => {
    if (deps.grants && !access) throw new FleetError('unauthenticated', 'missing or unknown bearer token');
    return {
      fleet,
      options,
      signal,
      audit: { logger, caller },
      // A scan outlives its RPC (a closed connection does not stop it; ScanStatus cancel does),
      // and belongs to who called: the grant's principal, the client certificate, else the
      // bearer token's holders.
      scans: deps.scans,
      principal: `fleet-api:${access?.principal ?? principal ?? (caller.startsWith('grpc:plaintext:') ? 'grpc:bearer' : caller)}`,
      ...(access ? { access } : {}),
    };
  };
  const unary: Record<string, Unary> = {};
  for (const tool of TOOLS) {
    const face = tool.fleet;
    if (!face) continue;
    const method = Fleet.methods.find((m) => m.name === face.method);
    if (!method) throw new Error(`fleet.proto: no RPC ${face.method} for the tool ${tool.name}`);
    unary[face.method] = async (request, call) => {
      refuseRetired(face.retired, method.input, request);
      const result = await runTool(tool, requestArgs(tool.input, method.input, request), context(call));
      if (result.narrowed) call.onNarrowed?.(result.narrowed);
      // The face's init shape for this method's output (the tool's presenter is typed so);
      // a page of a scan says where the scan stands beside it.
      const init = face.present(result) as MessageInitShape<typeof method.output> & { nextCursor?: string };
      return create(method.output, result.scan ? { ...init, scan: scanToWire(result.scan, !init.nextCursor) } : init);
    };
  }
  return {
    unary,
    Walk: async (request, call, send) =>
      streamWalk(requestArgs(WALK_INPUT, FleetWalkRequestSchema, request), context(call), send),
  };
}
