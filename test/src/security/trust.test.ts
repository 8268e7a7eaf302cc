// Trust faults seen from outside: `fleetls hosts --check` against real mTLS agents whose
// certificate is wrong in each way, and with a missing or wrong token. Each is status
// `auth` with a message saying which check failed and whose certificate, never
// `unreachable`; agents addressed by IP are verified against their IP SAN without Node's
// RFC 6066 warning.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type AgentProcess, startAgent } from '../helpers/agent-process.js';
import { makePki, type TestPki } from '../helpers/certs.js';
import { fleetls } from '../helpers/cli.js';

interface HostRow {
  host: string;
  status: string;
  message?: string;
}

describe('trust faults are named', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fleetls-trust-'));
  const tree = join(dir, 'tree');
  let pki: TestPki;
  const agents: Record<string, AgentProcess> = {};

  const inventory = (name: string, hosts: string[], extra: string[]): string => {
    const file = join(dir, `${name}.yaml`);
    writeFileSync(
      file,
      ['hosts:', ...hosts.flatMap((h) => [`  ${h}:`, `    agent: ${agents[h].address}`]), ...extra].join('\n'),
    );
    return file;
  };
  const tls = (client: 'gateway' | 'none' | 'stranger') => [
    'agent_tls:',
    `  ca: ${pki.ca}`,
    ...(client === 'gateway' ? [`  cert: ${pki.clientCert}`, `  key: ${pki.clientKey}`] : []),
    ...(client === 'stranger' ? [`  cert: ${pki.strangerCert}`, `  key: ${pki.strangerKey}`] : []),
  ];
  const check = async (file: string): Promise<{ rows: HostRow[]; stderr: string }> => {
    const r = await fleetls(['--inventory', file, 'hosts', '--check', '--json'], { cwd: dir });
    assert.match(String(r.code), /^[01]$/, r.stderr);
    return { rows: (JSON.parse(r.stdout) as { hosts: HostRow[] }).hosts, stderr: r.stderr };
  };

  before(async () => {
    mkdirSync(tree);
    writeFileSync(join(dir, 'token'), 's3cret\n');
    writeFileSync(join(dir, 'wrong-token'), 'nope\n');
    const certs = join(dir, 'certs');
    mkdirSync(certs);
    pki = makePki(certs, ['127.0.0.1']);
    const serve = (cert: string, key: string) =>
      startAgent({
        allow: [tree],
        tls: true,
        args: ['--tls-cert', cert, '--tls-key', key, '--tls-ca', pki.ca, '--token-file', join(dir, 'token')],
      });
    agents.good = await serve(pki.serverCert, pki.serverKey);
    agents['wrong-name'] = await serve(pki.wrongNameCert, pki.wrongNameKey);
    agents.expired = await serve(pki.expiredCert, pki.expiredKey);
    agents.foreign = await serve(pki.foreignCert, pki.foreignKey);
  });
  after(async () => {
    await Promise.all(Object.values(agents).map((a) => a.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

  it("names each fault of an agent's certificate, with its subject and issuer", async () => {
    const file = inventory(
      'certs',
      ['good', 'wrong-name', 'expired', 'foreign'],
      [...tls('gateway'), `agent_token_file: ${join(dir, 'token')}`],
    );
    const { rows, stderr } = await check(file);
    const by = Object.fromEntries(rows.map((r) => [r.host, r]));
    assert.equal(by.good.status, 'ok', by.good.message);
    for (const h of ['wrong-name', 'expired', 'foreign']) assert.equal(by[h].status, 'auth', `${h}: ${by[h].message}`);
    assert.match(
      by['wrong-name'].message ?? '',
      /agent certificate is for another host name \[ERR_TLS_CERT_ALTNAME_INVALID\]; .*127\.0\.0\.1.*; agent certificate subject CN=elsewhere, issuer CN=ca, .*names DNS:elsewhere\.example/,
    );
    assert.match(
      by.expired.message ?? '',
      /agent certificate has expired \[CERT_HAS_EXPIRED\]; agent certificate subject CN=expired, issuer CN=ca, valid Jan {2}1 00:00:00 2020 GMT to Jan {2}2 00:00:00 2020 GMT/,
    );
    assert.match(
      by.foreign.message ?? '',
      /agent certificate not signed by the inventory CA \[\w+\]; agent certificate subject CN=foreign, issuer CN=other-ca/,
    );
    // Every agent here is addressed by IP: verified against its IP SAN, without the warning.
    assert.doesNotMatch(stderr, /DeprecationWarning|RFC 6066/);
  });

  it('names a refused client certificate and a missing or wrong token', async () => {
    const token = `agent_token_file: ${join(dir, 'token')}`;
    const cases: [string, string[], RegExp][] = [
      [
        'no client certificate',
        [...tls('none'), token],
        /requires a client certificate .*\[ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED\]; .*agent certificate subject CN=agent, issuer CN=ca/,
      ],
      [
        'a client certificate of another CA',
        [...tls('stranger'), token],
        /did not accept the gateway's client certificate \[CLOSED_AFTER_HANDSHAKE\]; gateway certificate subject CN=stranger, issuer CN=other-ca/,
      ],
      ['no token', tls('gateway'), /missing bearer token/],
      ['a wrong token', [...tls('gateway'), `agent_token_file: ${join(dir, 'wrong-token')}`], /bad bearer token/],
    ];
    for (const [what, extra, re] of cases) {
      const { rows, stderr } = await check(inventory(what.replace(/ /g, '-'), ['good'], extra));
      assert.equal(rows[0].status, 'auth', `${what}: ${rows[0].message}`);
      assert.match(rows[0].message ?? '', re, what);
      assert.doesNotMatch(stderr, /DeprecationWarning/);
    }
  });
});
