// A small fleet of real processes for the MCP end-to-end tests: three agents on loopback
// ports (two serving the same tree, one allowed only a subdirectory), an address where
// nothing listens, and an inventory naming them all; also that fleet behind a real
// `fleetls serve --http`, with a client of it.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TOOLS } from '@fleetls/gateway';
import { assertConforms } from '@fleetls/gateway/testing';
import { type FileNode, freePort, makeTree, range } from '@fleetls/testkit';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type AgentProcess, startAgent } from './agent-process.js';
import { type GatewayProcess, httpClient, startGateway } from './gateway-process.js';

export interface McpFleetFixture {
  /** The directory every call lists: <tmp>/data. */
  data: string;
  inventory: string;
  deadAddress: string;
  agents: AgentProcess[];
  close(): Promise<void>;
}

const file = (size: number, mtime: number): FileNode => ({ data: 'a'.repeat(size), mtime });

/** <tmp>/data: three files, a directory of 150, a nested one, and a symlink to it. */
export function mcpTree(): { root: string; data: string } {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-mcp-')));
  const data = makeTree(path.join(root, 'data'), [
    ['a.log', file(300, 1_700_000_300)],
    ['B.txt', file(20, 1_700_000_020)],
    ['c.log', file(4000, 1_700_004_000)],
    ['sub/deep.log', file(7, 1_700_000_007)],
    ['sub/inner/x.bin', file(1, 1_700_000_001)],
    ...range(
      150,
      (i) => `big/f${String(i).padStart(3, '0')}`,
      (i) => file(i, 1_700_000_000 + i),
    ),
    ['current', { link: 'sub' }],
  ]);
  return { root, data };
}

export async function startMcpFleet(): Promise<McpFleetFixture> {
  const { root, data } = mcpTree();

  const agents = await Promise.all([
    startAgent({ allow: [root] }),
    startAgent({ allow: [root] }),
    startAgent({ allow: [path.join(data, 'sub')] }),
  ]);
  const dead = `127.0.0.1:${await freePort()}`;
  const inventory = path.join(root, 'fleetls.yaml');
  fs.writeFileSync(
    inventory,
    [
      'hosts:',
      `  web-1: { agent: "${agents[0].address}", labels: { role: web } }`,
      `  web-2: { agent: "${agents[1].address}", labels: { role: web } }`,
      `  narrow: { agent: "${agents[2].address}" }`,
      `  dead: { agent: "${dead}" }`,
      'groups: { webs: [web-1, web-2] }',
      'agent_tls: insecure',
      '',
    ].join('\n'),
  );
  return {
    data,
    inventory,
    deadAddress: dead,
    agents,
    close: async () => {
      await Promise.all(agents.map((a) => a.stop()));
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

/** startMcpFleet's fleet behind `fleetls serve --http` on a loopback port, and an SDK client of it. */
export interface McpHttpFixture {
  fleet: McpFleetFixture;
  gateway: GatewayProcess;
  /** The MCP endpoint: http://127.0.0.1:PORT/mcp. */
  url: string;
  /** The URL less /mcp: /metrics, /healthz and the Fleet API are under it. */
  base: string;
  /** Sends `token`, the gateway's only bearer token. */
  client: Client;
  close(): Promise<void>;
}

export async function startMcpHttp(token: string, clientName: string): Promise<McpHttpFixture> {
  const fleet = await startMcpFleet();
  const gateway = startGateway(['--http', '127.0.0.1:0'], { FLEETLS_INVENTORY: fleet.inventory, FLEETLS_TOKEN: token });
  const close = async (client?: Client) => {
    await client?.close();
    await gateway.stop();
    await fleet.close();
  };
  try {
    const url = await gateway.waitFor(/MCP over HTTP at (http:\/\/\S+)/);
    const client = await httpClient(url, token, clientName);
    return { fleet, gateway, url, base: url.replace(/\/mcp$/, ''), client, close: () => close(client) };
  } catch (err) {
    await close();
    throw err;
  }
}

/** A tool result as both SDK clients (v1 and v2) type it, as far as these tests read it. */
export interface AnyToolResult {
  content?: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** One client's tools/call, whichever SDK it is of (each types its result its own way). */
export type CallTool = (name: string, args: Record<string, unknown>) => Promise<unknown>;

const textOf = (r: AnyToolResult) => (r.content ?? []).map((c) => (c.type === 'text' ? (c.text ?? '') : '')).join('');

/**
 * Calls every tool of the registry once over `call`, on startMcpFleet's fleet as a model would
 * (the two web hosts, or every host with the dead one), and checks each answer: not an error,
 * its structuredContent matching the tool's outputSchema, text beside it. scan_status names a
 * scan, and this fleet's calls all answer within their deadline: it is called on a scan this
 * gateway does not hold, and must say so. Returns the names of the tools called.
 */
export async function driveEveryTool(fx: McpFleetFixture, call: CallTool): Promise<string[]> {
  const { data } = fx;
  const calls: Record<string, Record<string, unknown>> = {
    list_hosts: { host: 'all', check: true },
    list_directory: { host: '@webs', path: data, depth: 2 },
    list_files: { host: 'all', path: data, order_by: 'size', top_n: 5 },
    list_directories: { host: '@webs', path: data },
    stat: { host: '@webs', path: `${data}/a.log` },
    disk_usage: { host: 'web-1', path: data },
    diff_directory: { host: '@webs', path: data },
  };
  const driven: string[] = [];
  for (const tool of TOOLS) {
    driven.push(tool.name);
    if (tool.name === 'scan_status') {
      const r = (await call('scan_status', { cursor: 'scan.0123456789abcdef' })) as AnyToolResult;
      assert.equal(r.isError, true, textOf(r));
      assert.match(textOf(r), /scan/, textOf(r));
      continue;
    }
    const args = calls[tool.name];
    assert.ok(args, `driveEveryTool has no call of ${tool.name}: add one`);
    const r = (await call(tool.name, args)) as AnyToolResult;
    assert.ok(!r.isError, `${tool.name}: ${textOf(r)}`);
    assert.ok(r.structuredContent, `${tool.name} answered no structuredContent`);
    assertConforms(tool.name, r.structuredContent);
    assert.notEqual(textOf(r), '', `${tool.name} answered no text`);
  }
  // The gateway's own refusal of an unknown argument, in its words, on this revision too.
  const stray = (await call('list_files', { host: '@webs', path: data, maxDepth: 3 })) as AnyToolResult;
  assert.equal(stray.isError, true);
  assert.match(textOf(stray), /^Invalid arguments: maxDepth: unknown argument; did you mean max_depth\?/);
  return driven;
}
