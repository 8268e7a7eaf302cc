// TLS to an agent: which name its certificate must carry, and why a handshake failed.
// A failed connection says little (an OpenSSL code, or a bare close when the agent refused
// our certificate after a TLS 1.3 handshake), so after such a failure the client makes one
// handshake of its own with the same files, reads the agent's certificate and the check
// that failed, and core's TLS table names the fault.
import { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import * as tls from 'node:tls';
import { errnoOf, FleetError, fleetErrorFromTls, type PeerCertificate } from '@fleetls/core';

export interface AgentTlsMaterial {
  ca: Buffer;
  cert?: Buffer;
  key?: Buffer;
  /** The name the agent's certificate must carry; default the host part of its address. */
  serverName?: string;
}

/**
 * RFC 6066 forbids an IP address as the TLS server name (Node warns), so an agent addressed
 * by IP is sent this reserved name (RFC 2606 `.invalid`) and its certificate is checked
 * against the IP itself, i.e. its IP SAN.
 */
export const IP_SNI = 'fleetls-agent.invalid';

export function hostOfAddress(address: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(address);
  if (!m) throw new FleetError('invalid_argument', `agent address ${JSON.stringify(address)}: expected HOST:PORT`);
  return { host: m[1] ?? m[2], port: Number(m[3]) };
}

/** The name to verify and the SNI to send, for an agent at `address`. */
export function tlsIdentity(address: string, material: AgentTlsMaterial): { name: string; sni: string } {
  const name = material.serverName ?? hostOfAddress(address).host;
  return { name, sni: isIP(name) ? IP_SNI : name };
}

/** Node's checkServerIdentity against `name` whatever SNI was sent. */
export function checkIdentity(name: string): (sni: string, cert: tls.PeerCertificate) => Error | undefined {
  return (_sni, cert) => tls.checkServerIdentity(name, cert);
}

function peerOf(cert: tls.PeerCertificate | undefined): PeerCertificate | undefined {
  if (!cert?.raw) return undefined;
  const x = new X509Certificate(cert.raw);
  const dn = (s: string) => s.split('\n').join(', ');
  return {
    subject: dn(x.subject),
    issuer: dn(x.issuer),
    validFrom: x.validFrom,
    validTo: x.validTo,
    altNames: x.subjectAltName,
  };
}

function ownCertificate(pem: Buffer | undefined): string {
  if (!pem) return 'the gateway sent no client certificate';
  const x = new X509Certificate(pem);
  return `gateway certificate subject ${x.subject.split('\n').join(', ')}, issuer ${x.issuer.split('\n').join(', ')}`;
}

/**
 * One handshake with the gateway's files to say what is wrong with TLS to `address`:
 * a FleetError `unauthenticated` naming the failed check and the agent's certificate, or
 * undefined when TLS is fine or the agent is simply not there (the caller's error stands).
 */
export function diagnoseTls(
  address: string,
  material: AgentTlsMaterial,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<FleetError | undefined> {
  const { host, port } = hostOfAddress(address);
  const { name, sni } = tlsIdentity(address, material);
  const context = `agent ${address}`;
  return new Promise((resolve) => {
    let identityError: Error | undefined;
    let peer: PeerCertificate | undefined;
    let secured = false;
    const socket = tls.connect({
      host,
      port,
      ca: material.ca,
      cert: material.cert,
      key: material.key,
      servername: sni,
      ALPNProtocols: ['h2'],
      // Verified below, so that the certificate can be read and named whatever is wrong with it.
      rejectUnauthorized: false,
      checkServerIdentity: (_sni, cert) => {
        identityError = tls.checkServerIdentity(name, cert);
        return identityError;
      },
    });
    const done = (fe?: FleetError) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(fe);
    };
    const onAbort = () => done();
    const timer = setTimeout(() => done(), timeoutMs);
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('secureConnect', () => {
      peer = peerOf(socket.getPeerCertificate(false));
      if (!socket.authorized) {
        // Node sets the failed check's code here (OpenSSL's name, or ERR_TLS_CERT_ALTNAME_INVALID).
        const code = String(socket.authorizationError);
        const detail = identityError ? (identityError as Error & { reason?: string }).reason : undefined;
        done(
          fleetErrorFromTls(code, context, peer, detail) ??
            new FleetError('unauthenticated', `${context}: agent certificate refused [${code}]`),
        );
        return;
      }
      // TLS 1.3: the agent judges our certificate after our side is done; its first frame
      // (h2 SETTINGS) says it accepted us, an alert or a bare close says it did not.
      secured = true;
      socket.once('data', () => done());
    });
    const refused = (code: string | undefined) =>
      fleetErrorFromTls(code, context, peer, ownCertificate(material.cert)) ??
      (secured ? fleetErrorFromTls('CLOSED_AFTER_HANDSHAKE', context, peer, ownCertificate(material.cert)) : undefined);
    socket.once('error', (err) => done(refused(errnoOf(err))));
    socket.once('close', () => done(refused(undefined)));
  });
}
