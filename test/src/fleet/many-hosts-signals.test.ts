// A call over more hosts than Node's listener limit (10 per AbortSignal or emitter) puts no
// listener per host on anything shared: every MCP tool that fans out, and the Fleet gRPC
// Walk to a client that reads slowly (backpressure), run over 12 real agent servers with no
// MaxListenersExceededWarning in this process. Agents, gateway and MCP client share this
// process so that the process's 'warning' event sees every one of them.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createAgentServer, parseAgentConfig } from '@fleetls/agent';
import {
  createLogger,
  createMcpServer,
  type FleetGrpcServer,
  type LoadedFleet,
  loadFleet,
  resolveGatewayOptions,
  startFleetGrpcServer,
} from '@fleetls/gateway';
import { loadFleetContract } from '@fleetls/proto';
import { makeTree, range } from '@fleetls/testkit';
import * as grpc from '@grpc/grpc-js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';

const HOSTS = 12;
/** Files per host in the walked tree: enough rows to fill a slow client's HTTP/2 window. */
const FILES = 600;

const logger = createLogger({ name: 'test', level: 'silent' });

describe(`one call over ${HOSTS} hosts`, () => {
  const work = mkdtempSync(join(tmpdir(), 'fleetls-many-hosts-'));
  const data = join(work, 'data');
  const stops: (() => Promise<void>)[] = [];
  const warnings: Error[] = [];
  const onWarning = (w: Error) => warnings.push(w);
  let fleet: LoadedFleet;
  let mcp: Client;
  let api: FleetGrpcServer;

  before(async () => {
    makeTree(
      data,
      range(
        FILES,
        (i) => `d${Math.floor(i / 100)}/file-with-a-longish-name-${i % 100}.log`,
        () => 'x',
      ),
    );
    const addresses: string[] = [];
    for (let i = 0; i < HOSTS; i++) {
      const config = parseAgentConfig(
        ['--config', '/dev/null', '--listen', '127.0.0.1:0', '--insecure-loopback', '--allow', work],
        {},
      );
      const server = createAgentServer(config, logger);
      const { port } = await server.start();
      addresses.push(`127.0.0.1:${port}`);
      stops.push(() => server.shutdown(1000));
    }
    const inventory = join(work, 'fleet.yaml');
    writeFileSync(
      inventory,
      ['hosts:', ...addresses.map((a, i) => `  h${i}: { agent: "${a}" }`), 'agent_tls: insecure', ''].join('\n'),
    );
    fleet = await loadFleet({ inventoryPath: inventory, logger });
    const server = createMcpServer({ fleet, logger });
    const [ct, st] = InMemoryTransport.createLinkedPair();
    await server.connect(st);
    mcp = new Client({ name: 'many-hosts', version: '1.0.0' });
    await mcp.connect(ct);
    api = await startFleetGrpcServer({ host: '127.0.0.1', port: 0, fleet, logger, options: resolveGatewayOptions() });
    process.on('warning', onWarning);
  });
  after(async () => {
    process.off('warning', onWarning);
    await mcp?.close();
    await api?.close();
    await fleet?.close();
    await Promise.all(stops.map((s) => s()));
    rmSync(work, { recursive: true, force: true });
  });

  const listenerWarnings = () => warnings.filter((w) => w.name === 'MaxListenersExceededWarning');

  it('every tool that fans out: all hosts answer, no listener warning', async () => {
    warnings.length = 0;
    const calls: [string, Record<string, unknown>][] = [
      ['list_files', { host: 'all', path: data, order_by: 'size', top_n: 5, type: 'file' }],
      ['list_directory', { host: 'all', path: data, depth: 1 }],
      ['list_directories', { host: 'all', path: data }],
      ['disk_usage', { host: 'all', path: data }],
      ['stat', { host: 'all', path: data }],
      ['list_hosts', { check: true }],
    ];
    for (const [name, args] of calls) {
      const res = await mcp.callTool({ name, arguments: args });
      assert.ok(!res.isError, `${name}: ${JSON.stringify(res.content)}`);
      const hosts = (res.structuredContent as { hosts: { status: string }[] }).hosts;
      assert.equal(hosts.length, HOSTS, name);
      assert.deepEqual(
        hosts.filter((h) => h.status !== 'ok'),
        [],
        name,
      );
    }
    assert.deepEqual(listenerWarnings(), []);
  });

  it('the Fleet gRPC Walk to a slow reader: every row arrives, no listener warning', async () => {
    warnings.length = 0;
    const Fleet = loadFleetContract().proto.fleetls.v1.Fleet;
    const client = new Fleet(api.address, grpc.credentials.createInsecure()) as unknown as grpc.Client & {
      Walk(req: object): grpc.ClientReadableStream<{ rows?: { rows: unknown[] }; summary?: { entries: string } }>;
    };
    try {
      const call = client.Walk({ host: 'all', path: data, max_depth: 2, max_items_per_dir: FILES });
      // Not reading for a while: the gateway's writes meet backpressure while every host sends.
      call.pause();
      await new Promise((r) => setTimeout(r, 1500));
      let rows = 0;
      let entries = -1;
      await new Promise<void>((resolve, reject) => {
        call.on('data', (e) => {
          rows += e.rows?.rows.length ?? 0;
          if (e.summary) entries = Number(e.summary.entries);
        });
        call.on('end', resolve);
        call.on('error', reject);
        call.resume();
      });
      // Each host: the FILES/100 directories and their files.
      assert.equal(entries, HOSTS * (FILES + FILES / 100));
      assert.equal(rows, entries);
    } finally {
      client.close();
    }
    assert.deepEqual(listenerWarnings(), []);
  });
});
