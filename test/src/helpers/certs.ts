// Throwaway PKI for mTLS tests, made with the openssl CLI: a CA, a server certificate for
// the given addresses, a gateway client certificate, and a second CA with a "stranger"
// client certificate that the first CA does not vouch for.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
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

/** Writes the PKI into `dir`; the server certificate names every address or host name in `serverNames`. */
export function makePki(dir: string, serverNames: string[]): TestPki {
  ca(dir, 'ca');
  ca(dir, 'other-ca');
  const san = serverNames.map((n) => (isIP(n) ? `IP:${n}` : `DNS:${n}`)).join(',');
  leaf(dir, 'agent', 'ca', `subjectAltName=${san}\nextendedKeyUsage=serverAuth\n`);
  leaf(dir, 'gateway', 'ca', 'extendedKeyUsage=clientAuth\n');
  leaf(dir, 'stranger', 'other-ca', 'extendedKeyUsage=clientAuth\n');
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
  };
}
