// The Fleet gRPC API of a real `fleetls serve --grpc --http`, in front of two real agents,
// an SSH-only host (a real sshd) and an agent address where nothing listens, called by a
// plain @grpc/grpc-js client that knows the contract only through server reflection: it
// lists the hosts and walks a selector, and gets the same rows as the MCP tools for the
// same arguments over the HTTP port. Connect and gRPC-Web clients on the HTTP port (as a
// browser calls it) get the same answers, and only allowed browser origins may call.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type DescMethod, type DescService, toBinary } from '@bufbuild/protobuf';
import { createClient } from '@connectrpc/connect';
import { createConnectTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import { displayPath } from '@fleetls/core';
import { treeEntryPaths } from '@fleetls/gateway/testing';
import { loadFleetContract } from '@fleetls/proto';
import { Fleet } from '@fleetls/proto/fleet_pb';
import { makeTree, range, type TreeNode } from '@fleetls/testkit';
import * as grpc from '@grpc/grpc-js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type AgentProcess, healthCheck, startAgent } from '../../helpers/agent-process.js';
import { type GatewayProcess, startGateway } from '../../helpers/gateway-process.js';
import { reflect } from '../../helpers/reflection-client.js';
import { type Sshd, sshInventory, startSshd } from '../../helpers/sshd.js';

const TOKEN = 'fleet-api-e2e-token-0123456789';
const SELECTOR = 'agent-1,agent-2,ssh-only,dead';
const DASHBOARD_ORIGIN = 'http://dash.example:8080';

type Unary = (req: object, md: grpc.Metadata, cb: (err: grpc.ServiceError | null, res: never) => void) => void;
interface WireRow {
  host: string;
  row: { entry?: { path: Buffer; type: string }; truncation?: { dir: Buffer } };
}

/** A gRPC row in the MCP tool's words: host, display path, type word. */
function rowWords(r: WireRow): string {
  if (r.row.truncation) return `${r.host} ${displayPath(r.row.truncation.dir)} warning`;
  const e = r.row.entry!;
  const type = e.type.replace('ENTRY_TYPE_', '').toLowerCase();
  return `${r.host} ${displayPath(e.path)} ${type === 'dir' ? 'directory' : type}`;
}

/** A file of `size` bytes, readable by the SSH login user as by the agents. */
const file = (size: number): TreeNode => ({ data: 'a'.repeat(size), mode: 0o644 });

describe('Fleet gRPC API (reflection-only client) against real agents and an SSH-only host', () => {
  let sshd: Sshd;
  let agents: AgentProcess[];
  let gw: GatewayProcess;
  let grpcAddress: string;
  let mcp: Client;
  let fleet: grpc.Client & Record<string, Unary>;
  let services: string[];
  let tree: string;
  let httpBase: string;
  const md = new grpc.Metadata();
  md.set('authorization', `Bearer ${TOKEN}`);

  before(async () => {
    sshd = await startSshd();
    // Under the sshd's world-readable work dir, so its user lists it too.
    tree = join(sshd.dir, 'fleet-api-tree');
    makeTree(tree, [
      ['a.log', file(300)],
      ['b.txt', file(20)],
      ['sub/deep.log', file(7)],
      ...range(
        12,
        (i) => `many/f${String(i).padStart(2, '0')}`,
        (i) => file(i),
      ),
      ['sub', { dir: true, mode: 0o755 }],
      ['many', { dir: true, mode: 0o755 }],
    ]);
    fs.chmodSync(tree, 0o755);
    agents = await Promise.all([startAgent({ allow: [tree] }), startAgent({ allow: [tree] })]);
    const ssh = sshInventory(sshd);
    const inventory = join(sshd.dir, 'fleet-api.yaml');
    fs.writeFileSync(
      inventory,
      [
        'hosts:',
        `  agent-1: { agent: "${agents[0].address}", labels: { role: web } }`,
        `  agent-2: { agent: "${agents[1].address}" }`,
        `  ssh-only: { ssh: ${ssh} }`,
        '  dead: { agent: "127.0.0.1:1" }',
        'agent_tls: insecure',
        '',
      ].join('\n'),
    );
    gw = startGateway(['--http', '127.0.0.1:0', '--grpc', '127.0.0.1:0', '--cors-origin', DASHBOARD_ORIGIN], {
      FLEETLS_INVENTORY: inventory,
      FLEETLS_TOKEN: TOKEN,
    });
    grpcAddress = await gw.waitFor(/Fleet API \(gRPC\) at (\S+)/);
    const mcpUrl = await gw.waitFor(/MCP over HTTP at (http:\/\/\S+)/);
    httpBase = mcpUrl.replace(/\/mcp$/, '');
    mcp = new Client({ name: 'fleetls-fleet-api-e2e', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(mcpUrl), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
    const reflected = await reflect(grpcAddress, md, 'fleetls.v1.Fleet');
    services = reflected.services;
    fleet = new reflected.Service(grpcAddress, grpc.credentials.createInsecure()) as never;
  });
  after(async () => {
    fleet?.close();
    await mcp?.close();
    await gw?.stop();
    await Promise.all((agents ?? []).map((a) => a.stop()));
    await sshd?.stop();
  });

  const call = <T>(method: string, req: object, meta = md): Promise<T> =>
    new Promise((resolve, reject) =>
      fleet[method].call(fleet, req, meta, (err, res) => (err ? reject(err) : resolve(res as T))),
    );

  async function mcpTool(name: string, args: object): Promise<Record<string, unknown>> {
    const res = await mcp.callTool({ name, arguments: args as Record<string, unknown> });
    assert.notEqual(res.isError, true, JSON.stringify(res.content));
    return res.structuredContent as Record<string, unknown>;
  }

  it('advertises the Fleet service (and only it) through reflection, and answers health per service', async () => {
    assert.deepEqual(services, ['fleetls.v1.Fleet']);
    assert.equal(await healthCheck(grpcAddress, grpc.credentials.createInsecure(), 'fleetls.v1.Fleet'), 'SERVING');
    assert.equal(await healthCheck(grpcAddress), 'SERVING');
  });

  it('lists the hosts as list_hosts does (an empty selector is all)', async () => {
    const res = await call<{ hosts: { host: string; transport: string; labels: { key: string; value: string }[] }[] }>(
      'ListHosts',
      {},
    );
    const want = (await mcpTool('list_hosts', {})) as { hosts: { host: string; transport: string }[] };
    assert.deepEqual(
      res.hosts.map((h) => `${h.host} ${h.transport}`),
      want.hosts.map((h) => `${h.host} ${h.transport}`),
    );
    assert.deepEqual(res.hosts.find((h) => h.host === 'agent-1')?.labels, [{ key: 'role', value: 'web' }]);
    const checked = await call<{ checked: boolean; hosts: { host: string; reachable: boolean }[] }>('ListHosts', {
      host: SELECTOR,
      check: true,
    });
    assert.equal(checked.checked, true);
    assert.deepEqual(
      checked.hosts.map((h) => `${h.host} ${h.reachable}`),
      ['agent-1 true', 'agent-2 true', 'ssh-only true', 'dead false'],
    );
  });

  it('ListDirectory over agents, SSH and a dead host gives the rows and statuses of list_directory', async () => {
    const args = { host: SELECTOR, path: tree, depth: 2, max_items_per_dir: 5 };
    const res = await call<{ rows: WireRow[]; hosts: { host: string; status: string; via: string }[] }>(
      'ListDirectory',
      { host: SELECTOR, path: tree, depth: 2, maxItemsPerDir: 5 },
    );
    const want = (await mcpTool('list_directory', args)) as {
      dirs: string[];
      entries: { host: string; name: string; dir?: number; type?: string }[];
      hosts: { host: string; status: string; via: string }[];
    };
    assert.deepEqual(
      res.rows.map(rowWords),
      // The MCP rows are lean: a plain file carries no type.
      treeEntryPaths(want).map((e) => `${e.host} ${e.path} ${e.type ?? 'file'}`),
    );
    for (const host of ['agent-1', 'agent-2', 'ssh-only']) {
      assert.ok(
        res.rows.some((r) => r.host === host && r.row.truncation),
        `${host} shows the many/ cap`,
      );
    }
    assert.deepEqual(
      res.hosts.map((h) => `${h.host} ${h.status} ${h.via}`),
      want.hosts.map((h) => `${h.host} ${h.status} ${h.via}`),
    );
    assert.deepEqual(
      res.hosts.map((h) => `${h.host} ${h.status} ${h.via}`),
      ['agent-1 ok agent', 'agent-2 ok agent', 'ssh-only ok ssh', 'dead unreachable agent'],
    );
  });

  it('Walk streams each host’s state and rows, then the merged summary', async () => {
    const events: Record<string, unknown>[] = [];
    await new Promise<void>((resolve, reject) => {
      const stream = (
        fleet as unknown as { Walk(req: object, md: grpc.Metadata): grpc.ClientReadableStream<Record<string, unknown>> }
      ).Walk({ host: SELECTOR, path: tree, maxDepth: 2, maxItemsPerDir: 5 }, md);
      stream.on('data', (e: Record<string, unknown>) => events.push(e));
      stream.on('error', reject);
      stream.on('end', resolve);
    });
    const last = events.at(-1) as {
      event: string;
      summary: { hosts: { host: string; status: string }[]; entries: number };
    };
    assert.equal(last.event, 'summary');
    assert.deepEqual(
      last.summary.hosts.map((h) => `${h.host} ${h.status}`),
      ['agent-1 ok', 'agent-2 ok', 'ssh-only ok', 'dead unreachable'],
    );
    const tree1 = (await call<{ rows: WireRow[] }>('ListDirectory', {
      host: SELECTOR,
      path: tree,
      depth: 2,
      maxItemsPerDir: 5,
    })) as { rows: WireRow[] };
    for (const host of ['agent-1', 'ssh-only']) {
      const states = events
        .filter((e) => e.event === 'host' && (e.host as { host: string }).host === host)
        .map((e) => (e.host as { state: string }).state);
      assert.deepEqual(states, ['walking', 'done'], host);
      const streamed = events
        .filter((e) => e.event === 'rows' && (e.rows as { host: string }).host === host)
        .flatMap((e) => (e.rows as { rows: WireRow['row'][] }).rows.map((row) => rowWords({ host, row })));
      assert.deepEqual(
        streamed,
        tree1.rows.filter((r) => r.host === host).map(rowWords),
        `${host}: the streamed rows are ListDirectory's`,
      );
    }
    assert.equal(
      last.summary.entries,
      tree1.rows.filter((r) => r.row.entry).length,
      'the summary counts every entry streamed',
    );
  });

  it('refuses bad arguments with INVALID_ARGUMENT (the tool’s message) and a missing token with UNAUTHENTICATED', async () => {
    await assert.rejects(call('ListDirectory', { host: 'agent-1', path: tree, depth: 11 }), (e: grpc.ServiceError) => {
      assert.equal(e.code, grpc.status.INVALID_ARGUMENT);
      assert.equal(e.details, 'depth must be an integer from 1 to 10');
      return true;
    });
    await assert.rejects(call('ListHosts', {}, new grpc.Metadata()), (e: grpc.ServiceError) => {
      assert.equal(e.code, grpc.status.UNAUTHENTICATED);
      return true;
    });
  });

  it('answers a Connect and a gRPC-Web client on the HTTP port exactly as over gRPC', async () => {
    const desc: DescService = Fleet;
    const method = desc.methods.find((m) => m.name === 'ListDirectory') as DescMethod;
    const codec = (
      loadFleetContract().packageDefinition['fleetls.v1.Fleet'] as unknown as Record<
        string,
        { responseDeserialize(b: Buffer): unknown }
      >
    ).ListDirectory;
    // Hosts answer in their own time: the one field that may differ between two calls.
    const untimed = (r: unknown) => {
      const o = r as { hosts: { elapsedMs: number }[] };
      return { ...o, hosts: o.hosts.map((h) => ({ ...h, elapsedMs: 0 })) };
    };
    const viaGrpc = untimed(await call('ListDirectory', { host: SELECTOR, path: tree, depth: 2, maxItemsPerDir: 5 }));
    const headers = { authorization: `Bearer ${TOKEN}` };
    for (const transport of [
      createConnectTransport({ baseUrl: httpBase, httpVersion: '1.1' }),
      createConnectTransport({ baseUrl: httpBase, httpVersion: '1.1', useBinaryFormat: true }),
      createGrpcWebTransport({ baseUrl: httpBase, httpVersion: '1.1' }),
    ]) {
      const client = createClient(desc, transport) as unknown as Record<
        string,
        (req: object, opts: object) => Promise<never>
      >;
      const res = await client.listDirectory({ host: SELECTOR, path: tree, depth: 2, maxItemsPerDir: 5 }, { headers });
      // Read back with the gRPC side's own codec: the same message, field for field.
      assert.deepEqual(untimed(codec.responseDeserialize(Buffer.from(toBinary(method.output, res)))), viaGrpc);
      // 0 too: depth is proto3 optional, so a typed client's explicit 0 is sent and refused, not read as the default.
      for (const depth of [11, 0]) {
        await assert.rejects(
          client.listDirectory({ host: 'agent-1', path: tree, depth }, { headers }),
          (e: Error & { code: number; rawMessage: string }) => {
            assert.equal(e.code, grpc.status.INVALID_ARGUMENT);
            assert.equal(e.rawMessage, 'depth must be an integer from 1 to 10');
            return true;
          },
        );
      }
      await assert.rejects(client.listHosts({}, {}), (e: Error & { code: number }) => {
        assert.equal(e.code, grpc.status.UNAUTHENTICATED);
        return true;
      });
    }
  });

  it('lets an allowed browser origin call the Fleet API over HTTP (CORS), and refuses others', async () => {
    const url = `${httpBase}/fleetls.v1.Fleet/ListHosts`;
    const preflight = await fetch(url, {
      method: 'OPTIONS',
      headers: {
        origin: DASHBOARD_ORIGIN,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), DASHBOARD_ORIGIN);
    assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /authorization/);
    const post = (origin: string) =>
      fetch(url, {
        method: 'POST',
        headers: { origin, 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
        body: '{}',
      });
    const ok = await post(DASHBOARD_ORIGIN);
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('access-control-allow-origin'), DASHBOARD_ORIGIN);
    const body = (await ok.json()) as { hosts: { host: string }[] };
    assert.ok(body.hosts, JSON.stringify(body));
    assert.deepEqual(
      body.hosts.map((h) => h.host),
      ['agent-1', 'agent-2', 'ssh-only', 'dead'],
    );
    const other = await post('http://evil.example');
    assert.equal(other.status, 403);
    assert.equal(other.headers.get('access-control-allow-origin'), null);
  });
});
