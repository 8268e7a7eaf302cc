// TLS material from the identities verb (issue 38 ask 2): `fleetls nats issue --tls` makes a
// CA, a client certificate per host and one for the gateways, and the inventory naming them;
// `fleetls nats node NAME --tls` a server certificate per node, wired into its configuration
// with clients' certificates required. A real 3-node cluster started from those files serves
// an agent dialling out with its certificate and a gateway's call over TLS; a client without
// a certificate is refused.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort, makeTree, waitFor } from '@fleetls/testkit';
import { connect } from '@nats-io/transport-node';
import { type AgentProcess, startAgent } from '../helpers/agent-process.js';
import { fleetls } from '../helpers/cli.js';
import { NATS_SERVER } from '../helpers/nats-server.js';

describe('a NATS cluster from `fleetls nats issue --tls` and `node --tls`', () => {
  let dir: string;
  let d: string;
  const servers: ChildProcess[] = [];
  let agent: AgentProcess | undefined;
  let urls: string[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fleetls-nats-tls-'));
    d = join(dir, 'fleet');
    makeTree(join(dir, 'tree'), { 'a.txt': 'a', 'b.txt': 'bb' });
    const ports = await Promise.all(Array.from({ length: 6 }, () => freePort()));
    urls = ports.slice(0, 3).map((p) => `tls://127.0.0.1:${p}`);
    const issued = await fleetls(['nats', 'issue', '--dir', d, '--tls', '--servers', urls.join(','), 'web-1']);
    assert.equal(issued.code, 0, issued.stderr);
    for (let i = 0; i < 3; i++) {
      const r = await fleetls([
        'nats',
        'node',
        `n${i + 1}`,
        '--dir',
        d,
        '--tls',
        '--listen',
        `127.0.0.1:${ports[i]}`,
        '--store',
        join(dir, `js${i + 1}`),
        '--cluster-listen',
        `127.0.0.1:${ports[3 + i]}`,
        ...ports
          .slice(3)
          .filter((_, j) => j !== i)
          .flatMap((p) => ['--route', `127.0.0.1:${p}`]),
      ]);
      assert.equal(r.code, 0, r.stderr);
    }
    for (let i = 0; i < 3; i++) {
      const s = spawn(NATS_SERVER, ['-c', join(d, `n${i + 1}.conf`)], { stdio: ['ignore', 'pipe', 'pipe'] });
      servers.push(s);
      let out = '';
      await new Promise<void>((resolve, reject) => {
        const on = (b: Buffer) => {
          out += b.toString();
          if (/Server is ready/.test(out)) resolve();
        };
        s.stdout?.on('data', on);
        s.stderr?.on('data', on);
        s.once('exit', (code) => reject(new Error(`nats-server n${i + 1} exited with ${code}:\n${out}`)));
      });
    }
  });

  after(async () => {
    await agent?.stop();
    for (const s of servers) s.kill('SIGKILL');
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('writes the CA, a certificate per host, node and the gateways, keys 0600, and the configuration naming them', () => {
    for (const key of ['tls/ca.key', 'tls/gateway.key', 'tls/hosts/web-1.key', 'tls/nodes/n1.key']) {
      assert.equal(statSync(join(d, key)).mode & 0o777, 0o600, key);
    }
    const conf = readFileSync(join(d, 'n1.conf'), 'utf8');
    assert.match(
      conf,
      /tls \{ cert_file: ".*tls\/nodes\/n1\.crt", key_file: ".*tls\/nodes\/n1\.key", ca_file: ".*tls\/ca\.crt", verify: true \}/,
    );
    assert.match(
      readFileSync(join(d, 'fleet.yaml'), 'utf8'),
      /tls: \{ ca: tls\/ca\.crt, cert: tls\/gateway\.crt, key: tls\/gateway\.key \}/,
    );
  });

  it('serves an agent dialling out with its certificate and a call over TLS', async () => {
    agent = await startAgent({
      natsOnly: true,
      allow: [join(dir, 'tree')],
      args: [
        '--connect',
        urls.join(','),
        '--name',
        'web-1',
        '--nats-creds',
        join(d, 'web-1.nk'),
        '--nats-tls-ca',
        join(d, 'tls/ca.crt'),
        '--nats-tls-cert',
        join(d, 'tls/hosts/web-1.crt'),
        '--nats-tls-key',
        join(d, 'tls/hosts/web-1.key'),
        '--heartbeat-ms',
        '1000',
      ],
    });
    let last = '';
    const listed = await waitFor(
      async () => {
        const r = await fleetls(['--inventory', join(d, 'fleet.yaml'), 'ls', `web-1:${join(dir, 'tree')}`]);
        last = `${r.code} ${r.stdout} ${r.stderr}`;
        return r.code === 0 ? r.stdout : undefined;
      },
      { timeoutMs: 60_000, everyMs: 500, what: 'a call to web-1 over the TLS cluster' },
    ).catch((err) => {
      throw new Error(`${err.message}: ${last}`);
    });
    assert.match(listed, /a\.txt/);
    assert.match(listed, /b\.txt/);
  });

  it('refuses a client without a certificate', async () => {
    await assert.rejects(
      (async () => {
        const nc = await connect({
          servers: urls,
          tls: { caFile: join(d, 'tls/ca.crt') },
          reconnect: false,
          timeout: 5000,
        });
        await nc.close();
      })(),
    );
  });
});
