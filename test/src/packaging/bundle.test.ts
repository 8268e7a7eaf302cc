// The one-file programs of `npm run package`, run for real from a directory that holds
// nothing else (no node_modules, no .proto): the agent serves Walk and health, the
// gateway lists through it, and over SSH with ssh2's pure-JS crypto (no native addon).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { treeEntryPaths } from '@fleetls/gateway/testing';
import { type FleetClient, loadFleetContract } from '@fleetls/proto';
import { makeTree, run } from '@fleetls/testkit';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import {
  type AgentProcess,
  agentClient,
  healthCheck,
  REPO_ROOT,
  startAgent,
  walkAll,
} from '../helpers/agent-process.js';
import { startGateway } from '../helpers/gateway-process.js';
import { type Sshd, sshInventory, startSshd } from '../helpers/sshd.js';
import { entryPaths } from '../helpers/walks.js';

/** The one-file program as a user runs it: no inventory, a fresh HOME. */
function runFile(file: string, args: string[], cwd: string) {
  return run(process.execPath, [file, ...args], {
    cwd,
    env: { PATH: process.env.PATH, HOME: cwd, FLEETLS_INVENTORY: '' },
  });
}

describe('one-file programs (npm run package)', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'fleetls-bundle-'));
  const bare = join(tmp, 'bare');
  const agentFile = join(bare, 'fleetls-agent.mjs');
  const gatewayFile = join(bare, 'fleetls.mjs');
  let sshd: Sshd;
  let tree: string;
  let agent: AgentProcess;

  before(async () => {
    const out = join(tmp, 'dist');
    execFileSync(process.execPath, [join(REPO_ROOT, 'scripts/package/main.mjs'), '--out', out, '--only', 'bundles'], {
      stdio: 'pipe',
    });
    mkdirSync(bare);
    copyFileSync(join(out, 'fleetls-agent.mjs'), agentFile);
    copyFileSync(join(out, 'fleetls.mjs'), gatewayFile);
    sshd = await startSshd();
    // Under sshd's world-readable dir, so the SSH login user can list it too.
    tree = makeTree(join(sshd.dir, 'bundle-tree'), { 'one.txt': '1', 'sub/two.txt': '22' });
    agent = await startAgent({ main: agentFile, allow: [tree] });
  });
  after(async () => {
    await agent?.stop();
    await sshd?.stop();
    rmSync(tmp, { recursive: true, force: true });
  });

  /** The bundle's `tree HOST:tree --json` with `inventory`: the host ok, reached `via`, and the whole tree. */
  async function treeThrough(inventory: string, host: string, via: string): Promise<void> {
    const r = await runFile(gatewayFile, ['tree', `${host}:${tree}`, '--inventory', inventory, '--json'], bare);
    assert.equal(r.code, 0, r.stderr);
    const answer = JSON.parse(r.stdout);
    assert.deepEqual(
      answer.hosts.map((h: { host: string; status: string; via: string }) => [h.host, h.status, h.via]),
      [[host, 'ok', via]],
    );
    assert.deepEqual(
      treeEntryPaths(answer)
        .map((e) => e.path)
        .sort(),
      ['one.txt', 'sub', 'sub/two.txt'],
    );
  }

  it('are one file each, with the contract inside', () => {
    assert.deepEqual(readdirSync(bare).sort(), ['fleetls-agent.mjs', 'fleetls.mjs']);
    for (const file of [agentFile, gatewayFile]) {
      const text = readFileSync(file, 'utf8');
      assert.ok(text.startsWith('#!/usr/bin/env node\n'), file);
      // Nothing imported but Node's own modules.
      const imports = [...text.matchAll(/^import [^;]*? from ['"]([^'"]+)['"]/gm)].map((m) => m[1] as string);
      assert.ok(imports.length > 0);
      assert.deepEqual(
        imports.filter((m) => !isBuiltin(m)),
        [],
      );
    }
  });

  it('the agent bundle serves Walk and health from a bare directory', async () => {
    assert.equal(await healthCheck(agent.address), 'SERVING');
    const client = agentClient(agent.address);
    try {
      const { rows, summary } = await walkAll(client, { path: tree, maxDepth: 2 });
      const paths = entryPaths(rows);
      assert.deepEqual(paths, ['one.txt', 'sub', 'sub/two.txt']);
      assert.equal(summary.entriesSent, 3);
    } finally {
      client.close();
    }
  });

  it('the agent bundle with --path-rootfs (as in the DaemonSet) serves host paths read under the mount', async () => {
    const hostRoot = join(tree, '..');
    const inContainer = await startAgent({
      main: agentFile,
      allow: ['/bundle-tree'],
      args: ['--path-rootfs', hostRoot],
    });
    const client = agentClient(inContainer.address);
    try {
      const { rows } = await walkAll(client, { path: '/bundle-tree', maxDepth: 2 });
      const paths = entryPaths(rows);
      assert.deepEqual(paths, ['one.txt', 'sub', 'sub/two.txt']);
    } finally {
      client.close();
      await inContainer.stop();
    }
  });

  it('the agent bundle answers gRPC reflection', async () => {
    const dir = join(REPO_ROOT, 'node_modules/@grpc/reflection/build/proto');
    const def = protoLoader.loadSync('grpc/reflection/v1/reflection.proto', { includeDirs: [dir] });
    const Reflection = grpc.loadPackageDefinition(def).grpc as unknown as {
      reflection: { v1: { ServerReflection: grpc.ServiceClientConstructor } };
    };
    const client = new Reflection.reflection.v1.ServerReflection(agent.address, grpc.credentials.createInsecure());
    try {
      const services = await new Promise<string[]>((resolve, reject) => {
        const call = client.ServerReflectionInfo();
        call.on('data', (m: { listServicesResponse?: { service: { name: string }[] } }) => {
          resolve((m.listServicesResponse?.service ?? []).map((s) => s.name));
          call.end();
        });
        call.on('error', reject);
        call.write({ listServices: '' });
      });
      assert.deepEqual(services, ['fleetls.v1.Agent'], 'the agent advertises what it serves, and nothing else');
    } finally {
      client.close();
    }
  });

  it('the gateway bundle prints its version and lists through the agent bundle', async () => {
    const version = JSON.parse(readFileSync(join(REPO_ROOT, 'packages/gateway/package.json'), 'utf8')).version;
    assert.equal((await runFile(gatewayFile, ['--version'], bare)).stdout.trim(), version);
    const inventory = join(tmp, 'agents.yaml');
    writeFileSync(inventory, `hosts:\n  web-1: { agent: "${agent.address}" }\nagent_tls: insecure\n`);
    await treeThrough(inventory, 'web-1', 'agent');
  });

  it('the gateway bundle serves the Fleet API over gRPC and Connect, and the dashboard (all embedded)', async () => {
    const inventory = join(tmp, 'fleet-api.yaml');
    writeFileSync(
      inventory,
      `hosts:\n  web-1: { agent: "${agent.address}", labels: { role: web } }\nagent_tls: insecure\n`,
    );
    const gw = startGateway(
      ['--http', '127.0.0.1:0', '--grpc', '127.0.0.1:0'],
      // `serve --http` always wants a token (or --no-auth).
      { FLEETLS_INVENTORY: inventory, FLEETLS_TOKEN: 'bundle-token-0123456789' },
      {
        main: gatewayFile,
        cwd: bare,
      },
    );
    try {
      const grpcAddress = await gw.waitFor(/Fleet API \(gRPC\) at (\S+)/);
      const base = (await gw.waitFor(/MCP over HTTP at (http:\/\/\S+)/)).replace(/\/mcp$/, '');
      const connect = await fetch(`${base}/fleetls.v1.Fleet/ListDirectory`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer bundle-token-0123456789' },
        body: JSON.stringify({ host: 'web-1', path: tree }),
      });
      assert.equal(connect.status, 200, await connect.clone().text());
      const rows = ((await connect.json()) as { rows: { row: { entry: { path: string } } }[] }).rows;
      assert.deepEqual(rows.map((r) => Buffer.from(r.row.entry.path, 'base64').toString()).sort(), [
        'one.txt',
        'sub',
        'sub/two.txt',
      ]);
      const page = await fetch(`${base}/`);
      assert.equal(page.status, 200, 'the dashboard is embedded too');
      assert.match(await page.text(), /<title>fleetls<\/title>/);
      assert.equal((await fetch(`${base}/app.js`)).status, 200);
      const Fleet = loadFleetContract().proto.fleetls.v1.Fleet;
      const client = new Fleet(grpcAddress, grpc.credentials.createInsecure()) as unknown as FleetClient;
      const bearer = new grpc.Metadata();
      bearer.set('authorization', 'Bearer bundle-token-0123456789');
      const hosts = await new Promise<{ hosts: { host: string; labels: { key: string; value: string }[] }[] }>(
        (resolve, reject) => client.ListHosts({}, bearer, (err, res) => (err ? reject(err) : resolve(res as never))),
      ).finally(() => client.close());
      assert.deepEqual(hosts.hosts, [{ ...hosts.hosts[0], host: 'web-1', labels: [{ key: 'role', value: 'web' }] }]);
    } finally {
      await gw.stop();
    }
  });

  it('the gateway bundle lists over SSH (ssh2 without its native addon)', async () => {
    const inventory = join(tmp, 'ssh.yaml');
    writeFileSync(inventory, `hosts:\n  box: { ssh: ${sshInventory(sshd)} }\n`);
    await treeThrough(inventory, 'box', 'ssh');
  });

  it('the embedded localhost agent of the gateway bundle walks in its worker thread', async () => {
    const r = await runFile(gatewayFile, ['tree', `localhost:${tree}`, '--depth', '2'], bare);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /└── sub\/\n {4}└── two\.txt {2}2 B\n/);
  });
});
