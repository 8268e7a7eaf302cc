// Throwaway PKI for mTLS tests, made with the openssl CLI: a CA, a server certificate for
// the given addresses, a gateway client certificate, and a second CA with a "stranger"
// client certificate that the first CA does not vouch for; agent certificates that are
// wrong on purpose (another host's name, long expired).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';

export interface TestPki {
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  /** Another CA, and a client certificate it signed. */
  otherCa: string;
  strangerCert: string;
  strangerKey: string;
  /** Signed by the CA for other names (DNS:elsewhere.example, IP:10.255.255.1). */
  wrongNameCert: string;
  wrongNameKey: string;
  /** Signed by the other CA for the same names. */
  foreignCert: string;
  foreignKey: string;
  /** Signed by the CA for the same names, valid only in January 2020. */
  expiredCert: string;
  expiredKey: string;
}

/** An agent's mTLS flags: the PKI's server pair, for clients its CA vouched for. */
export function agentTlsArgs(pki: { ca: string; serverCert: string; serverKey: string }): string[] {
  return ['--tls-cert', pki.serverCert, '--tls-key', pki.serverKey, '--tls-ca', pki.ca];
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: 'ignore' });
}

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

function ca(dir: string, name: string): void {
  openssl(
    ['req', '-x509', ...EC, '-days', '1', '-subj', `/CN=${name}`, '-keyout', `${name}.key`, '-out', `${name}.crt`],
    dir,
  );
}

function leaf(dir: string, name: string, signer: string, ext: string): void {
  writeFileSync(join(dir, `${name}.ext`), ext);
  openssl(['req', ...EC, '-subj', `/CN=${name}`, '-keyout', `${name}.key`, '-out', `${name}.csr`], dir);
  openssl(
    ['x509', '-req', '-in', `${name}.csr`, '-CA', `${signer}.crt`, '-CAkey', `${signer}.key`, '-CAcreateserial'].concat(
      ['-days', '1', '-extfile', `${name}.ext`, '-out', `${name}.crt`],
    ),
    dir,
  );
}

/** `openssl x509` cannot backdate, `openssl ca` can: a leaf valid 2020-01-01 to 2020-01-02. */
function expiredLeaf(dir: string, name: string, signer: string, san: string): void {
  writeFileSync(join(dir, `${name}.index`), '');
  writeFileSync(join(dir, `${name}.serial`), '01\n');
  mkdirSync(join(dir, `${name}.new`));
  writeFileSync(
    join(dir, `${name}.cnf`),
    [
      '[ca]\ndefault_ca = d\n[d]',
      `database = ${name}.index\nnew_certs_dir = ${name}.new\nserial = ${name}.serial`,
      'default_md = sha256\npolicy = p\nunique_subject = no\n[p]\ncommonName = supplied',
      `[ext]\nsubjectAltName = ${san}\nextendedKeyUsage = serverAuth\n`,
    ].join('\n'),
  );
  openssl(['req', ...EC, '-subj', `/CN=${name}`, '-keyout', `${name}.key`, '-out', `${name}.csr`], dir);
  openssl(
    ['ca', '-batch', '-notext', '-config', `${name}.cnf`, '-cert', `${signer}.crt`, '-keyfile', `${signer}.key`].concat(
      ['-in', `${name}.csr`, '-out', `${name}.crt`, '-startdate', '20200101000000Z', '-enddate', '20200102000000Z'],
      ['-extensions', 'ext'],
    ),
    dir,
  );
}

/** Writes the PKI into `dir`; the server certificate names every address or host name in `serverNames`. */
export function makePki(dir: string, serverNames: string[]): TestPki {
  ca(dir, 'ca');
  ca(dir, 'other-ca');
  const san = serverNames.map((n) => (isIP(n) ? `IP:${n}` : `DNS:${n}`)).join(',');
  leaf(dir, 'agent', 'ca', `subjectAltName=${san}\nextendedKeyUsage=serverAuth\n`);
  leaf(dir, 'gateway', 'ca', 'extendedKeyUsage=clientAuth\n');
  leaf(dir, 'stranger', 'other-ca', 'extendedKeyUsage=clientAuth\n');
  leaf(dir, 'elsewhere', 'ca', 'subjectAltName=DNS:elsewhere.example,IP:10.255.255.1\nextendedKeyUsage=serverAuth\n');
  leaf(dir, 'foreign', 'other-ca', `subjectAltName=${san}\nextendedKeyUsage=serverAuth\n`);
  expiredLeaf(dir, 'expired', 'ca', san);
  const at = (f: string) => join(dir, f);
  return {
    ca: at('ca.crt'),
    serverCert: at('agent.crt'),
    serverKey: at('agent.key'),
    clientCert: at('gateway.crt'),
    clientKey: at('gateway.key'),
    otherCa: at('other-ca.crt'),
    strangerCert: at('stranger.crt'),
    strangerKey: at('stranger.key'),
    wrongNameCert: at('elsewhere.crt'),
    wrongNameKey: at('elsewhere.key'),
    foreignCert: at('foreign.crt'),
    foreignKey: at('foreign.key'),
    expiredCert: at('expired.crt'),
    expiredKey: at('expired.key'),
  };
}
