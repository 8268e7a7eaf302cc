// `fleetls serve`'s network faces, refused before anything listens: who may call the Fleet
// API over gRPC (a bearer token, client certificates, or --no-auth on loopback), its TLS
// files, and the browser origins --http admits.
import { invalidArgument, isLoopback } from '@fleetls/core';
import { originProblem } from '../../inventory/origins.js';
import type { Logger } from '../../logger.js';
import type { FleetTlsFiles } from '../fleet-api/server.js';
import { bearerTokens } from '../mcp/http-principal.js';

interface TlsFlags {
  grpc?: string;
  grpcTlsCert?: string;
  grpcTlsKey?: string;
  grpcTlsCa?: string;
}

/** `--cors-origin https://dash.example` (repeatable): exact origins, as a browser sends them. */
export function corsOrigins(given: string[] | undefined): string[] {
  return (given ?? []).map((o) => {
    const why = originProblem(o);
    if (why) throw invalidArgument(`--cors-origin: ${why}`);
    return o;
  });
}

export function grpcTls(flags: TlsFlags): FleetTlsFiles | undefined {
  const { grpcTlsCert: cert, grpcTlsKey: key, grpcTlsCa: ca } = flags;
  if (cert === undefined && key === undefined && ca === undefined) return undefined;
  if (flags.grpc === undefined) throw invalidArgument('--grpc-tls-cert, --grpc-tls-key and --grpc-tls-ca need --grpc');
  if (cert === undefined || key === undefined) {
    throw invalidArgument('--grpc-tls-cert and --grpc-tls-key go together (and --grpc-tls-ca needs both)');
  }
  return { cert, key, ...(ca !== undefined ? { ca } : {}) };
}

export function authWords(token: string | undefined, tls: FleetTlsFiles | undefined, grants = false): string {
  const words = [tls ? (tls.ca ? 'TLS, client certificate required' : 'TLS') : 'plaintext'];
  if (grants) words.push('a token of the grants file required');
  else if (token) words.push('bearer token required');
  else if (!tls?.ca) words.push('no auth: --no-auth, any local process may call');
  return ` (${words.join(', ')})`;
}

/**
 * The Fleet API over gRPC answers every tool, as /mcp does, so it asks for what /mcp asks:
 * a bearer token, or client certificates (mTLS), on loopback too; `--no-auth` (loopback
 * only) is the one way to run it open. Another local user, or any local process such as a
 * browser-launched helper, could otherwise list whatever the fleet lists.
 */
function checkGrpcAuth(token: string | undefined, tls: FleetTlsFiles | undefined, noAuth: boolean, host: string): void {
  if (noAuth && token) {
    throw invalidArgument('--no-auth and a bearer token (--token-file or $FLEETLS_TOKEN) exclude each other');
  }
  // The gRPC face has one bearer principal (fleet-api/impl.ts): several tokens would share
  // each other's scans there, so they are for --http only (each its own principal).
  const tokens = bearerTokens(token).length;
  if (tokens > 1) {
    throw invalidArgument(
      `--grpc takes one bearer token; the token file holds ${tokens} (one per line): serve --grpc with a file of one token`,
    );
  }
  if (token || tls?.ca) return;
  if (!noAuth) {
    throw invalidArgument(
      `--grpc: refusing to serve the Fleet API on ${host} without authentication: give a bearer token (--token-file FILE or $FLEETLS_TOKEN) or client certificates (--grpc-tls-ca), or --no-auth to run open (loopback only)`,
    );
  }
  if (!isLoopback(host)) {
    throw invalidArgument(
      `--no-auth serves the Fleet API without authentication and is refused on ${host}, which is not a loopback address; give a bearer token (--token-file or $FLEETLS_TOKEN) or client certificates (--grpc-tls-ca)`,
    );
  }
}

export function checkGrpcFace(
  token: string | undefined,
  tls: FleetTlsFiles | undefined,
  flags: { noAuth?: boolean },
  host: string,
  logger: Logger,
  grants = false,
): void {
  // With --grants every call carries a token of the file (fleet-api/service.ts), on loopback too.
  if (grants) {
    if (flags.noAuth)
      throw invalidArgument("--grants names who may call, by their tokens' hashes: it excludes --no-auth");
    return;
  }
  checkGrpcAuth(token, tls, flags.noAuth === true, host);
  if (flags.noAuth && !tls?.ca)
    logger.warn(
      { transport: 'grpc', auth: 'none' },
      '--no-auth: the Fleet API over gRPC has no token either; any local process or user may call it',
    );
}
