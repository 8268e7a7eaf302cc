// Throwaway PKI for mTLS tests: a CA, one server certificate valid for the given
// addresses, and a client certificate for the gateway, made with the openssl CLI.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TestPki {
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: 'ignore' });
}

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

function leaf(dir: string, name: string, ext: string): void {
  writeFileSync(join(dir, `${name}.ext`), ext);
  openssl(['req', ...EC, '-subj', `/CN=${name}`, '-keyout', `${name}.key`, '-out', `${name}.csr`], dir);
  openssl(
    ['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '1'].concat(
      ['-extfile', `${name}.ext`, '-out', `${name}.crt`],
    ),
    dir,
  );
}

/** Writes the PKI into `dir`; the server certificate names every address in `serverIps`. */
export function makePki(dir: string, serverIps: string[]): TestPki {
  openssl(
    ['req', '-x509', ...EC, '-days', '1', '-subj', '/CN=fleetls-test-ca', '-keyout', 'ca.key', '-out', 'ca.crt'],
    dir,
  );
  const san = serverIps.map((ip) => `IP:${ip}`).join(',');
  leaf(dir, 'agent', `subjectAltName=${san}\nextendedKeyUsage=serverAuth\n`);
  leaf(dir, 'gateway', 'extendedKeyUsage=clientAuth\n');
  return {
    ca: join(dir, 'ca.crt'),
    serverCert: join(dir, 'agent.crt'),
    serverKey: join(dir, 'agent.key'),
    clientCert: join(dir, 'gateway.crt'),
    clientKey: join(dir, 'gateway.key'),
  };
}
