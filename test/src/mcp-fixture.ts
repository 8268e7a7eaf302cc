// A small fleet of real processes for the MCP end-to-end tests: three agents on loopback
// ports (two serving the same tree, one allowed only a subdirectory), an address where
// nothing listens, and an inventory naming them all; also that fleet behind a real
// `fleetls serve --http`, with a client of it.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type FileNode, freePort, makeTree, range } from '@fleetls/testkit';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type AgentProcess, startAgent } from './helpers/agent-process.js';
import { type GatewayProcess, httpClient, startGateway } from './helpers/gateway-process.js';

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
