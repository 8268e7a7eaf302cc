// Where the .proto files live and the one set of loader options (mirrored by the flags of
// `npm run generate`). No grpc-js here. The walk workers do not load this file: their
// encoder's numbers are generated constants (gen/wire-numbers.ts).
import { fileURLToPath } from 'node:url';
import * as protoLoader from '@grpc/proto-loader';

export const PROTO_DIR = fileURLToPath(new URL('..', import.meta.url));
export const PROTO_FILES = ['fleetls/v1/agent.proto'];
/** The gateway's Fleet API (it imports agent.proto); loaded apart so an agent never advertises it. */
const FLEET_PROTO_FILES = ['fleetls/v1/fleet.proto'];

/** Must match the flags of `npm run generate`, or the generated types lie. */
export const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: false,
  longs: Number,
  enums: String,
  bytes: Buffer,
  defaults: true,
  oneofs: true,
  includeDirs: [PROTO_DIR],
};

let cached: protoLoader.PackageDefinition | undefined;

/** The contract's package definition, loaded once per thread. */
export function packageDefinition(): protoLoader.PackageDefinition {
  cached ??= protoLoader.loadSync(PROTO_FILES, LOADER_OPTIONS);
  return cached;
}

let fleetCached: protoLoader.PackageDefinition | undefined;

/** The Fleet API's package definition (with the agent messages it uses), loaded once. */
export function fleetPackageDefinition(): protoLoader.PackageDefinition {
  fleetCached ??= protoLoader.loadSync(FLEET_PROTO_FILES, LOADER_OPTIONS);
  return fleetCached;
}
