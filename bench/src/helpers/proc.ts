// Child processes of the bench: every one is registered and killed at exit (also on error or
// a signal), every wait has a timeout, and every address is loopback.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const AGENT_MAIN = path.join(REPO_ROOT, 'packages/agent/dist/main.js');
export const GATEWAY_MAIN = path.join(REPO_ROOT, 'packages/gateway/dist/main.js');

const live = new Set<number>();

/** Remembers a pid to kill at exit. */
export function track(pid: number | undefined): void {
  if (pid !== undefined) live.add(pid);
}
export function untrack(pid: number | undefined): void {
  if (pid !== undefined) live.delete(pid);
}

export function killAll(): void {
  for (const pid of live) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  live.clear();
}

process.on('exit', killAll);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(sig, () => {
    killAll();
    process.exit(130);
  });
}

export class TimeoutError extends Error {}

export function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new TimeoutError(`${what}: timed out after ${ms} ms`)), ms);
    }),
  ]);
}

/** Peak and current resident memory of a process, in bytes (Linux /proc). */
export function memoryOf(pid: number): { hwm: number; rss: number } | undefined {
  try {
    const s = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(s)?.[1] ?? Number.NaN) * 1024;
    return { hwm: kb('VmHWM'), rss: kb('VmRSS') };
  } catch {
    return undefined;
  }
}

/**
 * CPU time a process has used, in ms: the nanoseconds each of its threads has run
 * (/proc/<pid>/task/<tid>/schedstat), summed. /proc/<pid>/stat counts 10 ms ticks, which over a
 * call of a few ms reads 0 or 10 and leaves a per-round ratio to chance. A thread that ended
 * between two reads takes its time with it: measure processes whose threads live as long as they
 * do (a gateway, an agent, nats-server). Where schedstat is missing, the ticks.
 */
export function cpuMs(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    let ns = 0;
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err; // the thread ended: its time went with it
      }
    }
    return ns / 1e6;
  } catch {
    return ticksMs(pid);
  }
}

function ticksMs(pid: number): number {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) * (1000 / 100);
  } catch {
    return Number.NaN;
  }
}

/** Runs a shell pipeline; resolves with stdout, rejects on non-zero exit or timeout. */
export function sh(
  cmd: string,
  opts: { timeoutMs: number; env?: NodeJS.ProcessEnv; cwd?: string },
): Promise<{ stdout: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn('/bin/sh', ['-c', cmd], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LC_ALL: 'C', ...opts.env },
      cwd: opts.cwd,
      detached: true,
    });
    track(child.pid);
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      err += d;
    });
    const timer = setTimeout(() => {
      try {
        process.kill(-(child.pid as number), 'SIGKILL');
      } catch {
        // gone
      }
      reject(new TimeoutError(`${cmd.slice(0, 80)}: timed out after ${opts.timeoutMs} ms`));
    }, opts.timeoutMs);
    child.on('exit', (code) => {
      const ms = performance.now() - t0;
      clearTimeout(timer);
      untrack(child.pid);
      if (code === 0) resolve({ stdout: out, ms });
      else reject(new Error(`${cmd.slice(0, 80)}: exit ${code}: ${err.slice(0, 400)}`));
    });
  });
}

export interface AgentProc {
  address: string;
  pid: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** The Node flags the shipped agent executable carries (scripts/package/exec-argv.json, baked in by sea.mjs). */
export function shippedAgentNodeFlags(): string[] {
  const file = path.join(REPO_ROOT, 'scripts/package/exec-argv.json');
  const flags = (JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string[]>)['fleetls-agent'] ?? [];
  // The executable's runtime is Node 24; this node's V8 may not know every flag (Node 20 has
  // no --efficiency-mode and refuses to start with it): those it does not know are left out.
  const known = spawnSync(process.execPath, ['--v8-options'], { encoding: 'utf8' }).stdout ?? '';
  return flags.filter((f) => {
    const name = f.replace(/=.*/, '');
    return process.allowedNodeEnvironmentFlags.has(name) || known.includes(`  ${name} (`);
  });
}

/** How an agent of the bench starts, beyond its --allow roots. */
export interface AgentOptions {
  /** How long it may take to say it listens. */
  timeoutMs?: number;
  /** More arguments to the agent. */
  args?: string[];
  /** Flags to node before the program (the shipped executable's: shippedAgentNodeFlags()). */
  nodeFlags?: string[];
  /** Another build's agent (ab-structure.ts runs two builds side by side). */
  main?: string;
  /** A command prefix it runs under, which execs it (bindMountedOver: a host whose tree differs). */
  wrap?: string[];
}

const plaintextFlags = new Map<string, string>();
/** How a build's agent is told to serve plaintext on loopback: builds before issue 35 know only --insecure. */
function plaintextFlag(main: string): string {
  let flag = plaintextFlags.get(main);
  if (flag === undefined) {
    const help = spawnSync(process.execPath, [main, '--help'], { encoding: 'utf8' }).stdout ?? '';
    flag = help.includes('--insecure-loopback') ? '--insecure-loopback' : '--insecure';
    plaintextFlags.set(main, flag);
  }
  return flag;
}

/** Starts packages/agent/dist/main.js on 127.0.0.1:0 and waits for its "listening" line. */
export function startAgent(allow: string[], opts: AgentOptions = {}): Promise<AgentProc> {
  const { timeoutMs = 30_000, main = AGENT_MAIN } = opts;
  if (!fs.existsSync(main)) return Promise.reject(new Error(`${main} is not built`));
  const [command, ...args] = [
    ...(opts.wrap ?? []),
    process.execPath,
    ...(opts.nodeFlags ?? []),
    main,
    // An empty config: a host's /etc/fleetls/agent.yaml must not change what the bench measures.
    '--config',
    '/dev/null',
    '--listen',
    '127.0.0.1:0',
    plaintextFlag(main),
    ...allow.flatMap((a) => ['--allow', a]),
    ...(opts.args ?? []),
  ];
  const child = spawn(command, args, {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, LOG_LEVEL: 'info' },
  });
  track(child.pid);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return withTimeout(
    new Promise<AgentProc>((resolve, reject) => {
      let buf = '';
      let raw = '';
      child.stderr!.setEncoding('utf8');
      const onData = (d: string) => {
        raw += d;
        if (raw.length > 20_000) raw = raw.slice(-20_000);
        buf += d;
        let nl = buf.indexOf('\n');
        while (nl >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          nl = buf.indexOf('\n');
          try {
            const o = JSON.parse(line) as { msg?: string; port?: number; socket?: string };
            // A TCP agent logs its port; one on a Unix socket (--listen unix:PATH) its socket.
            if (o.msg === 'listening' && (typeof o.port === 'number' || typeof o.socket === 'string')) {
              child.stderr!.off('data', onData);
              child.stderr!.resume();
              resolve({
                address: o.socket !== undefined ? `unix:${o.socket}` : `127.0.0.1:${o.port}`,
                pid: child.pid as number,
                child,
                stop: async () => {
                  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
                  await exited;
                  untrack(child.pid);
                },
              });
              return;
            }
          } catch {
            // not JSON
          }
        }
      };
      child.stderr!.on('data', onData);
      child.once('exit', (code) => reject(new Error(`agent exited with ${code} before listening: ${raw.slice(-500)}`)));
    }),
    timeoutMs,
    'agent start',
  ).catch((err) => {
    child.kill('SIGKILL');
    throw err;
  });
}

export interface AgentHostProc {
  addresses: string[];
  pid: number;
  stop(): Promise<void>;
}

/** bench/dist/hosts/agent-host.js: `count` agent servers (real or stub) in one process. */
export function startAgentHost(
  mode: 'real' | 'stub',
  count: number,
  allow: string,
  timeoutMs = 60_000,
): Promise<AgentHostProc> {
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), '../hosts/agent-host.js');
  const child = spawn(process.execPath, [script, mode, String(count), allow], { stdio: ['ignore', 'ignore', 'pipe'] });
  track(child.pid);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return withTimeout(
    new Promise<AgentHostProc>((resolve, reject) => {
      let buf = '';
      child.stderr!.setEncoding('utf8');
      const onData = (d: string) => {
        buf += d;
        const m = /\{"msg":"listening","ports":\[([\d,]*)\]\}/.exec(buf);
        if (!m) return;
        child.stderr!.off('data', onData);
        child.stderr!.resume();
        resolve({
          addresses: m[1].split(',').map((p) => `127.0.0.1:${p}`),
          pid: child.pid as number,
          stop: async () => {
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
            await exited;
            untrack(child.pid);
          },
        });
      };
      child.stderr!.on('data', onData);
      child.once('exit', (code) => reject(new Error(`agent-host exited with ${code}: ${buf.slice(-500)}`)));
    }),
    timeoutMs,
    'agent-host start',
  ).catch((err) => {
    child.kill('SIGKILL');
    throw err;
  });
}
