// A small fleet of real processes for the MCP end-to-end tests: three agents on loopback
// ports (two serving the same tree, one allowed only a subdirectory), an address where
// nothing listens, and an inventory naming them all.
import * as fs from 'node:fs';
import { createServer } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { type AgentProcess, startAgent } from './helpers/agent-process.js';

export interface McpFleetFixture {
  /** The directory every call lists: <tmp>/data. */
  data: string;
  inventory: string;
  deadAddress: string;
  agents: AgentProcess[];
  close(): Promise<void>;
}

/** A loopback port that was free a moment ago: connecting to it is refused. */
async function deadAddress(): Promise<string> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const addr = srv.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return `127.0.0.1:${port}`;
}

function write(p: string, size: number, mtime: number): void {
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, Buffer.alloc(size, 0x61));
  fs.utimesSync(p, mtime, mtime);
}

/** <tmp>/data: three files, a directory of 150, a nested one, and a symlink to it. */
export function makeTree(): { root: string; data: string } {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-mcp-')));
  const data = path.join(root, 'data');
  write(path.join(data, 'a.log'), 300, 1_700_000_300);
  write(path.join(data, 'B.txt'), 20, 1_700_000_020);
  write(path.join(data, 'c.log'), 4000, 1_700_004_000);
  write(path.join(data, 'sub/deep.log'), 7, 1_700_000_007);
  write(path.join(data, 'sub/inner/x.bin'), 1, 1_700_000_001);
  for (let i = 0; i < 150; i++) write(path.join(data, `big/f${String(i).padStart(3, '0')}`), i, 1_700_000_000 + i);
  fs.symlinkSync('sub', path.join(data, 'current'));
  return { root, data };
}

export async function startMcpFleet(): Promise<McpFleetFixture> {
  const { root, data } = makeTree();

  const agents = await Promise.all([
    startAgent({ allow: [root] }),
    startAgent({ allow: [root] }),
    startAgent({ allow: [path.join(data, 'sub')] }),
  ]);
  const dead = await deadAddress();
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
