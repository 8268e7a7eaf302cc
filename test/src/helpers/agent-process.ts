// Starts the real fleetls-agent (packages/agent/dist/main.js) on a loopback port (or a
// Unix socket) and waits for its "listening" log line. Shared by every test that needs an agent.
import type { ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Row, WalkSummary } from '@fleetls/core';
import {
  type AgentClient,
  loadContract,
  rowFromWire,
  summaryFromWire,
  type WireWalkRequest,
  type WireWalkResponseOut,
} from '@fleetls/proto';
import { launch, READY_TIMEOUT_MS } from '@fleetls/testkit';
import * as grpc from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const AGENT_MAIN = path.join(REPO_ROOT, 'packages/agent/dist/main.js');

export interface AgentProcess {
  /** HOST:PORT, or unix:PATH with `socket`. */
  address: string;
  port: number;
  pid: number;
  /** Every JSON log line so far, parsed. */
  logs: () => Record<string, unknown>[];
  /** Raw stderr so far. */
  stderr: () => string;
  /** Waits for a log line matching `pred`. */
  waitForLog: (
    pred: (line: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ) => Promise<Record<string, unknown>>;
  /** Sends `signal` (default SIGTERM) and resolves with the exit code. */
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
  child: ChildProcess;
}

export interface StartAgentOptions {
  allow: string[];
  /** The program to run (default AGENT_MAIN; the package tests pass the one-file bundle). */
  main?: string;
  /** Extra flags; `--insecure-loopback` and `--listen 127.0.0.1:0` are given unless `tls` is set. */
  args?: string[];
  /** TLS instead of --insecure-loopback: the caller passes --tls-* in args. */
  tls?: boolean;
  /** Listen on this Unix socket instead (no TCP port; plaintext needs no flag there). */
  socket?: string;
  /** HOST:PORT to listen on instead of 127.0.0.1:0 (an address in a network namespace). */
  listen?: string;
  /** A command that execs node with the agent's arguments (e.g. unshare, setpriv). */
  wrap?: string[];
  /** Another node and its flags (default this process's node, no flags). */
  node?: string[];
  uid?: number;
  gid?: number;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  /** NATS only (--connect, no gRPC listener): no --listen given, ready at 'serving on NATS'. */
  natsOnly?: boolean;
}

/**
 * Agents of the load tests: their burst starves the 2 cores so that an ordinary lstat can take
 * longer than the 5 s hung-mount bound, which would mark the test's tmp mount hung and refuse
 * every later walk under it. Those tests are about admission, not hung mounts (fs-faults is).
 */
export const LOADED_HOST_ARGS = ['--fs-timeout-ms', '60000'];

export async function startAgent(opts: StartAgentOptions): Promise<AgentProcess> {
  const args = [opts.main ?? AGENT_MAIN];
  const listen = opts.listen ?? '127.0.0.1:0';
  if (!opts.natsOnly) args.push('--listen', opts.socket ? `unix:${opts.socket}` : listen);
  if (!opts.tls && !opts.socket && !opts.natsOnly) args.push('--insecure-loopback');
  for (const a of opts.allow) args.push('--allow', a);
  args.push(...(opts.args ?? []));
  const [command, ...commandArgs] = [...(opts.wrap ?? []), ...(opts.node ?? [process.execPath]), ...args];
  const p = launch(command, commandArgs, {
    name: 'agent',
    // An empty config: a /etc/fleetls/agent.yaml that another test installed (packages, Ansible) must not apply.
    env: { ...process.env, LOG_LEVEL: 'debug', FLEETLS_AGENT_CONFIG: '/dev/null', ...opts.env },
    uid: opts.uid,
    gid: opts.gid,
  });
  const lines: Record<string, unknown>[] = [];
  const waiters: { pred: (l: Record<string, unknown>) => boolean; resolve: (l: Record<string, unknown>) => void }[] =
    [];
  p.stderrLines((line) => {
    if (!line.startsWith('{')) return;
    let obj: Record<string, unknown>;
    try {
      obj = JSON.parse(line);
    } catch {
      return;
    }
    lines.push(obj);
    for (const w of [...waiters]) {
      if (w.pred(obj)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(obj);
      }
    }
  });

  const waitForLog = (pred: (l: Record<string, unknown>) => boolean, timeoutMs = 10_000) => {
    const found = lines.find(pred);
    if (found) return Promise.resolve(found);
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const w = {
        pred,
        resolve: (l: Record<string, unknown>) => {
          clearTimeout(timer);
          resolve(l);
        },
      };
      const timer = setTimeout(() => {
        waiters.splice(waiters.indexOf(w), 1);
        reject(new Error(`agent log line not seen within ${timeoutMs} ms; stderr:\n${p.stderr()}`));
      }, timeoutMs);
      waiters.push(w);
    });
  };

  let listening: Record<string, unknown>;
  try {
    listening = await Promise.race([
      waitForLog(
        (l) => l.msg === (opts.natsOnly ? 'serving on NATS' : 'listening'),
        opts.timeoutMs ?? READY_TIMEOUT_MS,
      ),
      p.exited.then((code) => {
        throw new Error(`agent exited with ${code} before listening; stderr:\n${p.stderr()}`);
      }),
    ]);
  } catch (err) {
    // No caller holds the child yet: one that did not start in time is killed here, or it outlives the test.
    await p.stop('SIGKILL');
    throw err;
  }
  const port = opts.socket ? 0 : Number(listening.port);
  return {
    address: opts.socket ? `unix:${opts.socket}` : `${listen.slice(0, listen.lastIndexOf(':'))}:${port}`,
    port,
    pid: p.child.pid as number,
    logs: () => lines,
    stderr: p.stderr,
    waitForLog,
    child: p.child,
    stop: p.stop,
  };
}

// ---- a minimal gRPC client for tests that speak to the agent directly ----

export function agentClient(
  address: string,
  creds = grpc.credentials.createInsecure(),
  options: grpc.ClientOptions = {},
) {
  const { proto } = loadContract();
  return new proto.fleetls.v1.Agent(address, creds, options) as unknown as AgentClient;
}

export interface WalkResult {
  rows: Row[];
  summary: WalkSummary;
  messages: number;
}

/** Runs one Walk to the end; rejects with the gRPC ServiceError on a status other than OK. */
export function walkAll(
  client: AgentClient,
  req: WireWalkRequest,
  metadata = new grpc.Metadata(),
  timeoutMs = 30_000,
): Promise<WalkResult> {
  return new Promise((resolve, reject) => {
    const rows: Row[] = [];
    let summary: WalkSummary | undefined;
    let messages = 0;
    const call = client.Walk(req, metadata, { deadline: Date.now() + timeoutMs });
    call.on('data', (m: WireWalkResponseOut) => {
      messages++;
      for (const r of m.rows) rows.push(rowFromWire(r));
      if (m.summary) summary = summaryFromWire(m.summary);
    });
    call.on('error', reject);
    call.on('end', () => {
      if (summary) resolve({ rows, summary, messages });
      else reject(new Error('walk ended without a summary'));
    });
  });
}

/** Health check over the agent's grpc.health.v1 service. */
export async function healthCheck(
  address: string,
  creds = grpc.credentials.createInsecure(),
  service = '',
): Promise<string> {
  const Health = grpc.makeGenericClientConstructor(healthService, 'Health');
  const client = new Health(address, creds) as unknown as grpc.Client & {
    Check: (
      req: { service: string },
      md: grpc.Metadata,
      opts: grpc.CallOptions,
      cb: (err: grpc.ServiceError | null, res: { status: string }) => void,
    ) => void;
  };
  try {
    return await new Promise((resolve, reject) => {
      client.Check({ service }, new grpc.Metadata(), { deadline: Date.now() + 5000 }, (err, res) =>
        err ? reject(err) : resolve(res.status),
      );
    });
  } finally {
    client.close();
  }
}

/** Opens a grpc.health.v1 Watch stream; `statuses` collects every status it reports. */
export function healthWatch(address: string, creds = grpc.credentials.createInsecure(), service = '') {
  const Health = grpc.makeGenericClientConstructor(healthService, 'Health');
  const client = new Health(address, creds) as unknown as grpc.Client & {
    Watch: (req: { service: string }, md: grpc.Metadata) => grpc.ClientReadableStream<{ status: string }>;
  };
  const statuses: string[] = [];
  const waiters: { status: string; resolve: () => void }[] = [];
  const stream = client.Watch({ service }, new grpc.Metadata());
  stream.on('data', (m: { status: string }) => {
    statuses.push(m.status);
    for (const w of waiters.filter((x) => x.status === m.status)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  });
  stream.on('error', () => {});
  return {
    statuses,
    /** Resolves once `status` has been reported. */
    until: (status: string) =>
      statuses.includes(status) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ status, resolve })),
    close: () => {
      stream.cancel();
      client.close();
    },
  };
}
