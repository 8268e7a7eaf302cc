// One side of ab-structure.ts's A/B: a built checkout with its own gateways (`fleetls serve` over
// stdio MCP, one over the shared stub agents, one over its own 10 agent processes) and its own
// agent for the walks. Both sides get the same inventories, trees and requests: only the code differs.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { type McpServerProc, startFleetls } from '../helpers/mcp.js';
import { type AgentProc, shippedAgentNodeFlags, startAgent } from '../helpers/proc.js';
import { writeInventory } from '../helpers/tools.js';
import { benchDir } from '../trees.js';

export interface Build {
  /** 0 then, 1 now: ab-structure.ts keeps its samples in [then, now] pairs. */
  side: 0 | 1;
  label: 'then' | 'now';
  /** The checkout's commit, short; the results name builds by commit, never by this machine's paths. */
  commit: string;
  gatewayMain: string;
  agentMain: string;
}

export interface Side {
  build: Build;
  /** `fleetls serve` over the stub agents (the same processes for both sides). */
  stubGateway: McpServerProc;
  /** `fleetls serve` over this build's own agent processes. */
  realGateway: McpServerProc;
  /** This build's agent for the walks, and a client that does not decode rows. */
  walkClient: grpc.Client;
  stop(): Promise<void>;
}

/** A built checkout at `dir`; throws naming what is missing. */
export function openBuild(side: Build['side'], dir: string): Build {
  const label = side === 0 ? 'then' : 'now';
  const gatewayMain = path.join(dir, 'packages/gateway/dist/main.js');
  const agentMain = path.join(dir, 'packages/agent/dist/main.js');
  for (const f of [gatewayMain, agentMain])
    if (!fs.existsSync(f)) throw new Error(`--${label}: ${f} is not built (run npm ci && npm run build in ${dir})`);
  let commit = '?';
  try {
    commit = execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    // not a git checkout: the table says '?'
  }
  return { side, label, commit, gatewayMain, agentMain };
}

/**
 * `n` agent processes of `main`, 4 at a time per side: at load 30, 16 agents starting at once
 * (both sides, 8 each) took over a minute to listen.
 */
async function startAgents(n: number, main: string, nodeFlags: string[] = []): Promise<AgentProc[]> {
  const out: AgentProc[] = [];
  while (out.length < n) {
    const batch = Math.min(4, n - out.length);
    out.push(
      ...(await Promise.all(
        Array.from({ length: batch }, () => startAgent([benchDir()], { timeoutMs: 120_000, nodeFlags, main })),
      )),
    );
  }
  return out;
}

/**
 * An inventory both builds parse: then (6474f0b) refuses keys it did not know (call_deadline_ms),
 * so only the fan-out section's concurrency and host deadline; now's default call deadline (40 s)
 * is far above these calls.
 */
function inventory(file: string, addresses: string[]): string {
  const hosts: Record<string, string> = {};
  addresses.forEach((a, i) => {
    hosts[`a${i + 1}`] = `agent: "${a}"`;
  });
  writeInventory(file, hosts, `defaults:\n  concurrency: ${Math.max(32, addresses.length)}\n  deadline_ms: 120000\n`);
  return file;
}

/** Starts `build`'s processes: its gateways over `stubAddresses` and over `realAgents` of its own, its walk agent. */
export async function startSide(
  build: Build,
  stubAddresses: string[],
  realAgents: number,
  home: (name: string) => string,
): Promise<Side> {
  const agents = await startAgents(realAgents, build.agentMain);
  // The walk section's agent: the node flags the shipped executable carries, for both builds alike.
  const [walkAgent] = await startAgents(1, build.agentMain, shippedAgentNodeFlags());
  const gateway = async (kind: string, addresses: string[]) => {
    const dir = home(`${build.label}-${kind}`);
    return startFleetls({
      inventory: inventory(path.join(dir, 'inventory.yaml'), addresses),
      cwd: dir,
      home: dir,
      main: build.gatewayMain,
    });
  };
  const stubGateway = await gateway('stub', stubAddresses);
  const realGateway = await gateway(
    'real',
    agents.map((a) => a.address),
  );
  const walkClient = new grpc.Client(walkAgent.address, grpc.credentials.createInsecure(), {
    'grpc.max_receive_message_length': 64 * 1024 * 1024,
  });
  return {
    build,
    stubGateway,
    realGateway,
    walkClient,
    async stop() {
      walkClient.close();
      await Promise.all([stubGateway.close(), realGateway.close()]);
      await Promise.all([...agents, walkAgent].map((a) => a.stop()));
    },
  };
}
