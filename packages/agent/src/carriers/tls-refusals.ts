// A TLS connection the agent turns away before any call (no client certificate, one of
// another CA, plaintext) is logged with its peer and a reason an operator can act on: grpc-js
// drops them silently, and the gateway on the other side sees only a closed connection.
import { X509Certificate } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import type * as net from 'node:net';
import type * as tls from 'node:tls';
import type * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';

/** The subject of the first certificate of a CA file, for the log line ("which CA"). */
export function caSubject(file: string): string {
  try {
    return new X509Certificate(readFileSync(file)).subject.replace(/\n/g, ', ');
  } catch (err) {
    return `unreadable: ${(err as Error).message}`;
  }
}

/** Why the handshake failed, in words, from the error OpenSSL gave Node. */
export function refusalReason(err: NodeJS.ErrnoException, ca: () => string): string {
  const text = `${err.code ?? ''} ${err.message}`.toLowerCase();
  if (
    /wrong.version.number|http.request|unknown.protocol|packet.length.too.long|record.layer|unexpected.message/.test(
      text,
    )
  )
    return 'plaintext: the client did not speak TLS (an inventory with agent_tls: insecure, or a plain gRPC client)';
  if (/did.not.return.a.certificate|peer_did_not_return|certificate.required/.test(text))
    return `no client certificate: the gateway's agent_tls needs cert and key issued by this agent's CA (${ca()})`;
  if (/unknown.ca|certificate.verify.failed|unable.to.get|self.signed|self_signed|issuer/.test(text))
    return `a client certificate this agent's CA (${ca()}) did not issue: the gateway's agent_tls.cert is from another CA`;
  if (/expired/.test(text)) return 'an expired client certificate';
  return err.message;
}

/** Why Node refused the peer's certificate, when it did (tls.TLSSocket.authorizationError). */
function authorizationFailure(socket: tls.TLSSocket): NodeJS.ErrnoException | undefined {
  const why = socket.authorizationError as Error | string | undefined;
  if (why === undefined || why === null) return undefined;
  const code = typeof why === 'string' ? why : ((why as NodeJS.ErrnoException).code ?? why.message);
  return Object.assign(new Error(`certificate verify failed: ${code}`), { code });
}

const HOOKED = Symbol('fleetls refusals logged');
const PEER = Symbol('fleetls peer');
type Peered = net.Socket & { [PEER]?: string };

/**
 * Logs every TLS connection refused by the servers `server` listens with. grpc-js keeps its
 * HTTP/2 servers in a private map (1.14: `http2Servers`); without one there is nothing to
 * hook and nothing is logged.
 */
export function logTlsRefusals(server: grpc.Server, logger: Logger, caFile: string): void {
  const servers = (server as unknown as { http2Servers?: unknown }).http2Servers;
  if (!(servers instanceof Map)) return;
  for (const s of servers.keys() as IterableIterator<EventEmitter & { [HOOKED]?: true }>) {
    if (s[HOOKED]) continue;
    s[HOOKED] = true;
    // The peer is read at connect: a refused TLS socket may have lost its address by the time it errs.
    s.on('connection', (raw: Peered) => {
      raw[PEER] = `${raw.remoteAddress ?? '?'}:${raw.remotePort ?? '?'}`;
    });
    s.on('tlsClientError', (err: NodeJS.ErrnoException, socket: tls.TLSSocket) => {
      logger.warn(
        {
          peer: (socket as { _parent?: Peered })._parent?.[PEER] ?? `${socket.remoteAddress}:${socket.remotePort}`,
          // The CA file is read for the words only, so a reload (SIGHUP) is named as it is now.
          // A certificate that fails verification is refused by Node after the handshake
          // (rejectUnauthorized): the socket then holds why, and the error is a hang-up.
          reason: refusalReason(authorizationFailure(socket) ?? err, () => caSubject(caFile)),
          code: err.code,
        },
        'refused a connection before any call',
      );
    });
  }
}
