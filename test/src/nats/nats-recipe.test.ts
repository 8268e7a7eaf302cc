// docs/nats.md's recipe, run as written (issue 38): its fenced block through bash, with this
// test's directory and free ports in the variables it reads, `fleetls` and `fleetls-agent` on
// PATH as this build. It must end with both agents listed and checked `ok`; both gateways it
// starts answer over MCP HTTP with its token. The identities it made hold: web-1's key may
// not subscribe to web-2's requests.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { freePort, run, waitFor } from '@fleetls/testkit';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connect, nkeyAuthenticator } from '@nats-io/transport-node';
import { AGENT_MAIN, REPO_ROOT } from '../helpers/agent-process.js';
import { GATEWAY_MAIN } from '../helpers/gateway-process.js';

/** The shell block of the recipe section: the text between ```sh and ``` under "## Recipe". */
function recipe(): string {
  const doc = readFileSync(join(REPO_ROOT, 'docs/nats.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Recipe'));
  const m = /```sh\n([\s\S]*?)```/.exec(section);
  assert.ok(m, 'docs/nats.md has a ## Recipe with a ```sh block');
  return m[1];
}

describe('docs/nats.md: the recipe, run as written', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fleetls-nats-recipe-'));
  let pgid: number | undefined;

  after(() => {
    // The recipe's servers, agents and gateways: bash's process group.
    if (pgid) {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {}
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('ends with a 3-node cluster, two gateways and two agents that answer', async () => {
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    for (const [name, main] of [
      ['fleetls', GATEWAY_MAIN],
      ['fleetls-agent', AGENT_MAIN],
    ]) {
      writeFileSync(join(bin, name), `#!/bin/sh\nexec "${process.execPath}" "${main}" "$@"\n`);
      chmodSync(join(bin, name), 0o755);
    }
    const ports = await Promise.all(Array.from({ length: 8 }, () => freePort()));
    const d = join(dir, 'fleet');
    const env = {
      PATH: `${bin}:${process.env.PATH}`,
      HOME: dir,
      FLEETLS_NATS_DIR: d,
      NATS_PORT_1: String(ports[0]),
      NATS_PORT_2: String(ports[1]),
      NATS_PORT_3: String(ports[2]),
      NATS_CLUSTER_PORT_1: String(ports[3]),
      NATS_CLUSTER_PORT_2: String(ports[4]),
      NATS_CLUSTER_PORT_3: String(ports[5]),
      GATEWAY_PORT_1: String(ports[6]),
      GATEWAY_PORT_2: String(ports[7]),
      // An agent.yaml another test installed in /etc must not apply.
      FLEETLS_AGENT_CONFIG: '/dev/null',
    };
    // stdin not a socket: bash would take itself for rshd's and read /etc/bash.bashrc.
    const sh = spawn('bash', ['-euo', 'pipefail', '-c', recipe()], {
      cwd: dir,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    pgid = sh.pid;
    let out = '';
    let err = '';
    sh.stdout.on('data', (b: Buffer) => {
      out += b.toString();
    });
    sh.stderr.on('data', (b: Buffer) => {
      err += b.toString();
    });
    const code = await new Promise<number | null>((resolve) => {
      const t = setTimeout(() => resolve(-1), 180_000);
      sh.once('exit', (c) => {
        clearTimeout(t);
        resolve(c);
      });
    });
    const logs = () =>
      ['nats-1', 'web-1', 'gateway-1']
        .map((f) => {
          try {
            return `--- ${f}.log ---\n${readFileSync(join(d, `${f}.log`), 'utf8').slice(-3000)}`;
          } catch {
            return '';
          }
        })
        .join('\n');
    assert.equal(code, 0, `the recipe failed:\n${out}\n${err}\n${logs()}`);
    // The last attempt's table (earlier ones may have found the agents not registered yet).
    const rows = out
      .split('\n')
      .filter((l) => /^web-[12]\s/.test(l))
      .slice(-2);
    assert.deepEqual(
      rows.map((r) => r.split(/\s+/)[0]),
      ['web-1', 'web-2'],
      out,
    );
    for (const r of rows) assert.match(r, /agent\+nats.*\bok\b/, out);

    const token = readFileSync(join(d, 'token'), 'utf8').trim();
    for (const port of [ports[6], ports[7]]) {
      const client = new Client({ name: 'nats-recipe', version: '1.0.0' });
      await waitFor(
        async () => {
          try {
            await client.connect(
              new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
                requestInit: { headers: { Authorization: `Bearer ${token}` } },
              }),
            );
            return true;
          } catch {
            return false;
          }
        },
        { timeoutMs: 30_000, everyMs: 250, what: `the gateway on ${port}` },
      );
      try {
        const listed = async () => {
          const r = await client.callTool({ name: 'list_hosts', arguments: { host: 'all', check: true } });
          if (r.isError) return JSON.stringify(r.content);
          const hosts = (r.structuredContent as { hosts: { host: string; status: string }[] }).hosts;
          return JSON.stringify(hosts.map((h) => [h.host, h.status]));
        };
        // A gateway hears each registration as it happens: both agents, each answering.
        await waitFor(async () => (await listed()) === '[["web-1","ok"],["web-2","ok"]]', {
          timeoutMs: 30_000,
          everyMs: 500,
          what: `both agents ok on the gateway at ${port}`,
        });
      } finally {
        await client.close();
      }
    }

    // The permissions it wrote: web-1's key cannot take web-2's requests.
    const nc = await connect({
      servers: [`nats://127.0.0.1:${ports[1]}`],
      authenticator: nkeyAuthenticator(new TextEncoder().encode(readFileSync(join(d, 'web-1.nk'), 'utf8').trim())),
    });
    try {
      const refused = await new Promise<string>((resolve) => {
        nc.subscribe('fleetls.agent.web-2.>', {
          callback: (e) => {
            if (e) resolve(e.message);
          },
        });
        setTimeout(() => resolve('allowed'), 10_000).unref();
      });
      assert.match(refused, /permissions violation/i);
    } finally {
      await nc.close();
    }
    // What it wrote is what deploy/nats/ ships, whitespace aside.
    const squash = (t: string) => t.replace(/\s+/g, ' ');
    const permissionsOf = (conf: string, marker: RegExp) => {
      const at = conf.search(marker);
      const from = conf.indexOf('permissions:', at);
      return squash(conf.slice(from, conf.indexOf('} }', from)));
    };
    const shipped = readFileSync(join(REPO_ROOT, 'deploy/nats/nats-server.conf'), 'utf8');
    const written = readFileSync(join(d, 'accounts.conf'), 'utf8');
    assert.equal(permissionsOf(written, /# agent web-1/), permissionsOf(shipped, /# BEGIN agent web-1/));
    assert.equal(permissionsOf(written, /# gateway/), permissionsOf(shipped, /# BEGIN gateway/));
    // A gateway given an agent's key: the registry read says which permission is missing.
    const wrong = await run(
      join(bin, 'fleetls'),
      ['--nats', `nats://127.0.0.1:${ports[0]}`, '--nats-creds', join(d, 'web-1.nk'), 'hosts'],
      {
        env: { ...process.env, ...env, FLEETLS_INVENTORY: '' },
      },
    );
    assert.match(
      wrong.stderr,
      /registry read \(bucket fleetls-hosts\): the server's permissions deny these credentials to (subscribe to _INBOX\.|publish to \$JS\.API\.)/,
      wrong.stderr,
    );
    assert.match(wrong.stderr, /No agent has registered on NATS/, wrong.stderr);
    // Denied is denied: said at the first answer, not after four more tries.
    assert.doesNotMatch(wrong.stderr, /trying again/, wrong.stderr);
  });
});
