// TLS failures → fleetls codes. Node names each failed certificate check (OpenSSL's verify
// result as `authorizationError`, ERR_TLS_CERT_ALTNAME_INVALID for a wrong name) and each
// alert the peer sent (ERR_SSL_…_ALERT_…). Every one is a trust fault, status `auth`: the
// message says which check failed and whose certificate, so nobody hunts a network fault.
import { type Code, FleetError } from './errors.js';
import { ownValue } from './own-key.js';

/** The one code of every row: a trust fault, host status `auth`. */
const TLS_CODE: Code = 'unauthenticated';

const NOT_SIGNED = 'agent certificate not signed by the inventory CA';
const REFUSED_US = "the agent refused the gateway's client certificate";

/** Each TLS failure's words: which check failed, and whose certificate. */
export const TLS_TABLE: Readonly<Record<string, string>> = {
  SELF_SIGNED_CERT_IN_CHAIN: NOT_SIGNED,
  DEPTH_ZERO_SELF_SIGNED_CERT: NOT_SIGNED,
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: NOT_SIGNED,
  UNABLE_TO_GET_ISSUER_CERT: NOT_SIGNED,
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: NOT_SIGNED,
  CERT_SIGNATURE_FAILURE: NOT_SIGNED,
  CERT_UNTRUSTED: NOT_SIGNED,
  CERT_REJECTED: NOT_SIGNED,
  INVALID_CA: NOT_SIGNED,
  CERT_HAS_EXPIRED: 'agent certificate has expired',
  CERT_NOT_YET_VALID: 'agent certificate is not yet valid',
  CERT_REVOKED: 'agent certificate is revoked',
  ERR_TLS_CERT_ALTNAME_INVALID: 'agent certificate is for another host name',
  ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED:
    'the agent requires a client certificate and the inventory gives none (agent_tls.cert, agent_tls.key)',
  ERR_SSL_TLSV1_ALERT_UNKNOWN_CA: "the agent's CA did not sign the gateway's client certificate",
  ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE: REFUSED_US,
  ERR_SSL_SSLV3_ALERT_CERTIFICATE_UNKNOWN: REFUSED_US,
  ERR_SSL_SSLV3_ALERT_CERTIFICATE_EXPIRED: "the gateway's client certificate has expired",
  ERR_SSL_TLSV1_ALERT_DECRYPT_ERROR: REFUSED_US,
  // Ours, not Node's: a Node agent checks a client certificate after the handshake and then
  // closes the connection without an alert.
  CLOSED_AFTER_HANDSHAKE:
    "the agent closed the connection after the handshake: it did not accept the gateway's client certificate",
  ERR_SSL_WRONG_VERSION_NUMBER: 'the agent does not speak TLS (plaintext agent, TLS inventory)',
};

/** What the gateway saw of the agent's certificate, for the message. */
export interface PeerCertificate {
  subject: string;
  issuer: string;
  validFrom?: string;
  validTo?: string;
  /** subjectAltName as Node prints it ("DNS:a, IP Address:127.0.0.1"). */
  altNames?: string;
}

/** A TLS failure code → FleetError "<context>: <what failed> [CODE]; <certificate>", or undefined if not TLS. */
export function fleetErrorFromTls(
  tlsCode: string | undefined,
  context: string,
  peer?: PeerCertificate,
  detail?: string,
): FleetError | undefined {
  const says = ownValue(TLS_TABLE, tlsCode);
  if (!says) return undefined;
  const parts = [`${context}: ${says} [${tlsCode}]`];
  if (detail) parts.push(detail);
  if (peer) {
    let cert = `agent certificate subject ${peer.subject}, issuer ${peer.issuer}`;
    if (peer.validTo) cert += `, valid ${peer.validFrom ?? '?'} to ${peer.validTo}`;
    if (peer.altNames) cert += `, names ${peer.altNames}`;
    parts.push(cert);
  }
  return new FleetError(TLS_CODE, parts.join('; '));
}
