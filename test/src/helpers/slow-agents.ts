// Starts slow-agents-main.js: many agents in one process, each on its own loopback port,
// answering after its own delay or never. The caller sees every call's start and end (the
// process's stdout lines) to tell how many walks are open at any moment.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTree, type TreeSpec, waitFor } from '@fleetls/testkit';

const MAIN = path.join(path.dirname(fileURLToPath(import.meta.url)), 'slow-agents-main.js');

export interface CallEvent {
  t: number;
  ev: 'start' | 'end';
  rpc: string;
  port: number;
  how?: string;
}

export interface SlowAgents {
  /** One per host, in the order of the delays given. */
  addresses: string[];
  events: CallEvent[];
  /** Calls started and not ended yet; with `since`, of the events from that index on. */
  open(since?: number): number;
  /** When the last call began (ms since the epoch; 0 before any). */
  lastStart(): number;
  stop(): Promise<void>;
}

export interface SlowFleet {
  /** A fresh directory of the fleet's own; gone after close(). */
  work: string;
  /** The tree every host serves: <work>/data. */
  data: string;
  agents: SlowAgents;
  /** An inventory naming host i `name(i)`, plaintext, with `defaults`. */
  inventory: string;
  close(): Promise<void>;
}

/** The scan tests' fake fleet: slow agents (`delays`, as startSlowAgents) over one declared tree, and its inventory. */
export async function startSlowFleet(opts: {
  tree: TreeSpec;
  delays: (number | null)[];
  name: (i: number) => string;
  /** The inventory's `defaults:` flow mapping (deadlines). */
  defaults: string;
}): Promise<SlowFleet> {
  const work = mkdtempSync(path.join(tmpdir(), 'fleetls-slow-fleet-'));
  const data = makeTree(path.join(work, 'data'), opts.tree);
  const agents = await startSlowAgents(data, opts.delays, path.join(work, 'agents.json'));
  const inventory = path.join(work, 'fleetls.yaml');
  writeFileSync(
    inventory,
    [
      'hosts:',
      ...agents.addresses.map((a, i) => `  ${opts.name(i)}: { agent: "${a}" }`),
      'agent_tls: insecure',
      `defaults: ${opts.defaults}`,
      '',
    ].join('\n'),
  );
  return {
    work,
    data,
    agents,
    inventory,
    close: async () => {
      await agents.stop();
      rmSync(work, { recursive: true, force: true });
    },
  };
}

/**
 * The answer's rows and status per host, as the slow fleet must give them: a host that never
 * answers (`never(i)`) timed out with no row, every other is ok with the rows `want`.
 */
export function assertHostRows(
  names: string[],
  never: (i: number) => boolean,
  status: Map<string, string>,
  rows: Map<string, string[]>,
  want: string[],
): void {
  names.forEach((h, i) => {
    if (never(i)) {
      assert.equal(status.get(h), 'timeout', h);
      assert.equal(rows.get(h), undefined, h);
    } else {
      assert.equal(status.get(h), 'ok', h);
      assert.deepEqual(rows.get(h)?.sort(), want, h);
    }
  });
}

/** `delays[i]`: ms host i waits before it answers, null: never. `spec` is where the spec file goes. */
export async function startSlowAgents(root: string, delays: (number | null)[], spec: string): Promise<SlowAgents> {
  writeFileSync(spec, JSON.stringify({ root, delays }));
  const child: ChildProcess = spawn(process.execPath, [MAIN, spec], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exit = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const events: CallEvent[] = [];
  let ports: number[] | undefined;
  let buf = '';
  let exited = false;
  void exit.then(() => {
    exited = true;
  });
  child.stdout?.on('data', (c: Buffer) => {
    buf += c.toString();
    let nl = buf.indexOf('\n');
    while (nl >= 0) {
      const line = JSON.parse(buf.slice(0, nl)) as CallEvent & { ports?: number[] };
      buf = buf.slice(nl + 1);
      if (line.ports) ports = line.ports;
      else events.push(line);
      nl = buf.indexOf('\n');
    }
  });
  const stop = async () => {
    if (!exited) child.kill('SIGKILL');
    await exit;
  };
  try {
    const bound = await waitFor(() => ports ?? (exited ? 'exited' : undefined), {
      timeoutMs: 60_000,
      everyMs: 50,
      what: `${delays.length} slow agents listening`,
    });
    if (bound === 'exited') throw new Error('the slow agents process exited before listening');
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    addresses: (ports as number[]).map((p) => `127.0.0.1:${p}`),
    events,
    open: (since = 0) => events.slice(since).reduce((n, e) => n + (e.ev === 'start' ? 1 : -1), 0),
    lastStart: () => events.findLast((e) => e.ev === 'start')?.t ?? 0,
    stop,
  };
}
