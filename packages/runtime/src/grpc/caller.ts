// Who made a gRPC call, for audit lines of the agent and of the Fleet API: the client
// certificate's subject under mTLS, else the transport (plaintext loopback, or a Unix socket).
import { X509Certificate } from 'node:crypto';
import type * as grpc from '@grpc/grpc-js';

export function callerOf(call: Pick<grpc.ServerInterceptingCallInterface, 'getAuthContext' | 'getPeer'>): string {
  const cert = call.getAuthContext().sslPeerCertificate;
  if (cert?.raw) {
    const x = new X509Certificate(cert.raw);
    return `cert:${x.subject.split('\n').join(', ')} (issuer ${x.issuer.split('\n').join(', ')})`;
  }
  return `plaintext:${call.getPeer()}`;
}
