// The agent's credentials, read at start and again on SIGHUP: its certificate, key and CA
// (new TLS connections get the new ones; connections already open keep theirs, so walks in
// flight finish) and the bearer token (checked per call, so the next call sees it).
import { createSecureContext } from 'node:tls';
import { readSettingFile, readToken, tokenDigest, tokenInterceptor } from '@fleetls/runtime';
import * as grpc from '@grpc/grpc-js';
import type { AgentConfig } from './config.js';

/**
 * grpc-js's certificate-provider seam, fed by us: it sets the secure context of the
 * listening server whenever we publish, and leaves open connections alone.
 */
class ReloadedCertificates implements grpc.experimental.CertificateProvider {
  private ca: grpc.experimental.CaCertificateUpdate;
  private identity: grpc.experimental.IdentityCertificateUpdate;
  private readonly caListeners = new Set<grpc.experimental.CaCertificateUpdateListener>();
  private readonly identityListeners = new Set<grpc.experimental.IdentityCertificateUpdateListener>();

  constructor(tls: NonNullable<AgentConfig['tls']>) {
    ({ ca: this.ca, identity: this.identity } = ReloadedCertificates.read(tls));
  }

  static read(tls: NonNullable<AgentConfig['tls']>) {
    const identity = {
      certificate: readSettingFile(tls.cert, 'tls_cert'),
      privateKey: readSettingFile(tls.key, 'tls_key'),
    };
    // Refuse a certificate that does not go with its key before publishing anything.
    const ca = { caCertificate: readSettingFile(tls.ca, 'tls_ca') };
    try {
      createSecureContext({ cert: identity.certificate, key: identity.privateKey, ca: ca.caCertificate });
    } catch (err) {
      throw new Error(`tls_cert, tls_key, tls_ca: ${(err as Error).message}`);
    }
    return { ca, identity };
  }

  publish(tls: NonNullable<AgentConfig['tls']>): void {
    ({ ca: this.ca, identity: this.identity } = ReloadedCertificates.read(tls));
    for (const l of this.caListeners) l(this.ca);
    for (const l of this.identityListeners) l(this.identity);
  }

  // grpc-js registers its watcher only after adding these listeners: the first update must come later.
  addCaCertificateListener(l: grpc.experimental.CaCertificateUpdateListener): void {
    this.caListeners.add(l);
    queueMicrotask(() => this.caListeners.has(l) && l(this.ca));
  }
  removeCaCertificateListener(l: grpc.experimental.CaCertificateUpdateListener): void {
    this.caListeners.delete(l);
  }
  addIdentityCertificateListener(l: grpc.experimental.IdentityCertificateUpdateListener): void {
    this.identityListeners.add(l);
    queueMicrotask(() => this.identityListeners.has(l) && l(this.identity));
  }
  removeIdentityCertificateListener(l: grpc.experimental.IdentityCertificateUpdateListener): void {
    this.identityListeners.delete(l);
  }
}

export interface AgentCredentials {
  server: grpc.ServerCredentials;
  /** The token check, when the agent has a token. */
  interceptor?: grpc.ServerInterceptor;
  /** Reads every file again; on any error throws and the credentials in use stay. */
  reload(): void;
}

/** `onRefused`: told of each call the token check turns away (the audit line of that RPC). */
export function loadCredentials(
  config: AgentConfig,
  onRefused?: Parameters<typeof tokenInterceptor>[1],
): AgentCredentials {
  let token = config.tokenFile ? tokenDigest(`Bearer ${readToken(config.tokenFile)}`) : undefined;
  const certificates = config.tls ? new ReloadedCertificates(config.tls) : undefined;
  return {
    server: certificates
      ? grpc.experimental.createCertificateProviderServerCredentials(certificates, certificates, true)
      : grpc.ServerCredentials.createInsecure(),
    interceptor: token ? tokenInterceptor(() => token as Buffer, onRefused) : undefined,
    reload() {
      // Everything is read before anything changes: a bad file leaves both as they were.
      const next = config.tokenFile ? tokenDigest(`Bearer ${readToken(config.tokenFile)}`) : undefined;
      if (certificates && config.tls) certificates.publish(config.tls);
      token = next;
    },
  };
}
