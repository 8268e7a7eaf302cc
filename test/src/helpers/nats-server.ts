// Real nats-server processes (Debian's package, installed by .ci/run) on loopback ports:
// one server or a cluster of several, JetStream on, each with its own store directory.
// Ports are picked free up front, since a cluster's routes name each other's.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, waitFor } from '@fleetls/testkit';
import { createUser } from '@nats-io/nkeys';
import type { NatsConnection } from '@nats-io/transport-node';
import { REPO_ROOT } from './agent-process.js';

export const NATS_SERVER = process.env.NATS_SERVER ?? 'nats-server';
/** The NATS server configuration the packages ship, with its example agent and gateway. */
const SHIPPED_CONF = join(REPO_ROOT, 'deploy/nats/nats-server.conf');

export interface NatsNode {
  name: string;
  port: number;
  url: string;
  /** Stops it (SIGTERM, or SIGKILL to kill it as a crash would). */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again on the same ports and store. */
  start(): Promise<void>;
  log(): string;
}

export interface NatsClusterOptions {
  dir: string;
  nodes?: number;
  /** Extra configuration text every node gets (accounts, authorization, tls…). */
  extra?: string;
}

export async function startNatsCluster(opts: NatsClusterOptions): Promise<NatsNode[]> {
  const n = opts.nodes ?? 1;
  const ports = await Promise.all(Array.from({ length: n }, () => freePort()));
  const routes = n > 1 ? await Promise.all(Array.from({ length: n }, () => freePort())) : [];
  const nodes: NatsNode[] = [];
  for (let i = 0; i < n; i++) {
    const name = `n${i + 1}`;
    const store = join(opts.dir, name);
    mkdirSync(store, { recursive: true });
    const conf = [
      `server_name: ${name}`,
      `listen: 127.0.0.1:${ports[i]}`,
      `jetstream { store_dir: "${store}", max_memory_store: 256MB, max_file_store: 1GB }`,
      n > 1
        ? `cluster { name: fleetls-test, listen: 127.0.0.1:${routes[i]}, routes: [${routes
            .filter((_, j) => j !== i)
            .map((p) => `nats-route://127.0.0.1:${p}`)
            .join(', ')}] }`
        : '',
      opts.extra ?? '',
    ].join('\n');
    const file = join(opts.dir, `${name}.conf`);
    writeFileSync(file, conf);
    nodes.push(natsNode(name, ports[i], file));
  }
  await Promise.all(nodes.map((s) => s.start()));
  return nodes;
}

function natsNode(name: string, port: number, conf: string): NatsNode {
  let child: ChildProcess | undefined;
  let out = '';
  const node: NatsNode = {
    name,
    port,
    url: `nats://127.0.0.1:${port}`,
    log: () => out,
    async start() {
      if (child && child.exitCode === null && child.signalCode === null) {
        throw new Error(`nats-server ${name} is running already (pid ${child.pid})`);
      }
      const c = spawn(NATS_SERVER, ['-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
      child = c;
      const seen = new Promise<void>((resolve, reject) => {
        const onData = (d: Buffer) => {
          out += d.toString();
          if (/Server is ready/.test(out.slice(-4096)) || /Server is ready/.test(out)) resolve();
        };
        c.stdout?.on('data', onData);
        c.stderr?.on('data', onData);
        c.once('exit', (code) => reject(new Error(`nats-server ${name} exited with ${code}:\n${out}`)));
        setTimeout(() => reject(new Error(`nats-server ${name} not ready within 15 s:\n${out}`)), 15_000).unref();
      });
      out = '';
      await seen;
    },
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      const c = child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return;
      const gone = new Promise<void>((resolve) => c.once('exit', () => resolve()));
      c.kill(signal);
      await gone;
    },
  };
  return node;
}

/** A user nkey of a test: its public key, its seed and the file the seed is written to. */
export interface Key {
  pub: string;
  seedFile: string;
  seed: Uint8Array;
}

/** A new user nkey, its seed written to `dir`/`name`.nk (0600). */
export function newKey(dir: string, name: string): Key {
  const u = createUser();
  const seedFile = join(dir, `${name}.nk`);
  writeFileSync(seedFile, new TextDecoder().decode(u.getSeed()), { mode: 0o600 });
  return { pub: u.getPublicKey(), seedFile, seed: u.getSeed() };
}

/** The shipped accounts block (deploy/nats), the example agent's entry repeated for each of `agents`. */
export function accountsFor(agents: Record<string, Key>, gateway: Key): string {
  const text = readFileSync(SHIPPED_CONF, 'utf8');
  const accounts = text.slice(text.indexOf('accounts {'));
  const agentBlock = /# BEGIN agent web-1\n([\s\S]*?)# END agent web-1\n/.exec(accounts);
  assert.ok(agentBlock, 'the shipped conf marks its example agent entry');
  const entries = Object.entries(agents)
    .map(([host, k]) => agentBlock[1].replace(/UAGENTWEB1PUBLICKEYX+/, k.pub).replaceAll('web-1', host))
    .join('');
  const out = accounts.replace(agentBlock[0], entries).replace(/UGATEWAYPUBLICKEYX+/, gateway.pub);
  assert.ok(!/PUBLICKEYX/.test(out), 'every example key replaced');
  return out;
}

/**
 * Waits until the cluster's JetStream takes the host registry with `replicas` (a cluster
 * elects its JetStream leader some seconds after its nodes listen).
 */
export async function registryReady(nc: NatsConnection, replicas: number): Promise<void> {
  const { openRegistryBucket } = await import(join(REPO_ROOT, 'packages/hosts/dist/agent/nats/registry.js'));
  await waitFor(
    () =>
      openRegistryBucket(nc, undefined, replicas).then(
        () => true,
        () => false,
      ),
    { timeoutMs: 60_000, everyMs: 500, what: 'JetStream of the cluster ready' },
  );
}
