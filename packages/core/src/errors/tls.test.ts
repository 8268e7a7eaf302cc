import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hostStatusFromCode } from './errors.js';
import { fleetErrorFromTls, TLS_TABLE } from './tls.js';

const PEER = {
  subject: 'CN=agent',
  issuer: 'CN=other-ca',
  validFrom: 'Jan  1 00:00:00 2020 GMT',
  validTo: 'Jan  2 00:00:00 2020 GMT',
  altNames: 'IP Address:10.0.0.1',
};

describe('TLS table', () => {
  it('every row is a trust fault: host status auth', () => {
    for (const tlsCode of Object.keys(TLS_TABLE)) {
      assert.equal(hostStatusFromCode(fleetErrorFromTls(tlsCode, 'agent')?.code ?? 'internal'), 'auth', tlsCode);
    }
  });

  const TABLE: [string, RegExp][] = [
    ['SELF_SIGNED_CERT_IN_CHAIN', /not signed by the inventory CA/],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', /not signed by the inventory CA/],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', /not signed by the inventory CA/],
    ['UNABLE_TO_GET_ISSUER_CERT_LOCALLY', /not signed by the inventory CA/],
    ['CERT_HAS_EXPIRED', /has expired/],
    ['CERT_NOT_YET_VALID', /not yet valid/],
    ['ERR_TLS_CERT_ALTNAME_INVALID', /another host name/],
    ['ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED', /requires a client certificate/],
    ['ERR_SSL_TLSV1_ALERT_UNKNOWN_CA', /did not sign the gateway's client certificate/],
    ['CLOSED_AFTER_HANDSHAKE', /did not accept the gateway's client certificate/],
    ['ERR_SSL_WRONG_VERSION_NUMBER', /does not speak TLS/],
  ];
  for (const [tlsCode, says] of TABLE) {
    it(tlsCode, () => {
      const e = fleetErrorFromTls(tlsCode, 'agent 10.0.0.1:7443', PEER, 'Host: 10.0.0.2');
      assert.ok(e);
      assert.equal(e.code, 'unauthenticated');
      assert.match(e.message, says);
      assert.equal(
        e.message.replace(/: .*? \[/, ': … ['),
        `agent 10.0.0.1:7443: … [${tlsCode}]; Host: 10.0.0.2; agent certificate subject CN=agent, issuer CN=other-ca, valid Jan  1 00:00:00 2020 GMT to Jan  2 00:00:00 2020 GMT, names IP Address:10.0.0.1`,
      );
    });
  }

  it('is silent on what is not TLS, so the caller keeps its own error', () => {
    for (const code of ['ECONNREFUSED', 'ECONNRESET', '', undefined, 'toString']) {
      assert.equal(fleetErrorFromTls(code, 'agent x:1'), undefined, String(code));
    }
  });
});
