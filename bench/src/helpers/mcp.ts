// MCP servers over stdio with the SDK's Client: fleetls serve and the peers, each call timed,
// its answer measured in bytes (the text a model reads, and the whole JSON result).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { GATEWAY_MAIN, memoryOf, REPO_ROOT, track, untrack, withTimeout } from './proc.js';

/** The SDK's default ReadBuffer limit: a stock client drops the connection on a bigger message. */
export const STOCK_CLIENT_LIMIT = 10 * 1024 * 1024;
export const BENCH_MAX_MESSAGE = 1024 * 1024 * 1024;

export interface CallOutcome {
  ms: number;
  /** Bytes of content[].text: what a model reads. */
  textBytes: number;
  /** Bytes of the whole JSON result (text + structuredContent). */
  jsonBytes: number;
  /** Characters of the same: what Claude Code's 50,000-character threshold counts. */
  jsonChars: number;
  isError: boolean;
  text: string;
  structured: Record<string, unknown> | undefined;
}

export interface McpServerProc {
  name: string;
  pid: number | undefined;
  call(tool: string, args: Record<string, unknown>, timeoutMs?: number): Promise<CallOutcome>;
  memory(): { hwm: number; rss: number } | undefined;
  /** The server's `instructions` from its initialize answer. */
  instructions(): string | undefined;
  stderr(): string;
  /** Times the server was started again after it died. */
  restarts(): number;
  close(): Promise<void>;
}

export interface StartOptions {
  name: string;
  command: string;
  args: string[];
  env?: Record<string, string>;
  cwd?: string;
  timeoutMs?: number;
}

/** Peers run without a network: `unshare -n` when we are root and it works. */
export function isolateNetwork(command: string, args: string[]): { command: string; args: string[] } {
  if (process.getuid?.() === 0 && fs.existsSync('/usr/bin/unshare')) {
    return { command: '/usr/bin/unshare', args: ['-n', '--', command, ...args] };
  }
  return { command, args };
}

interface Connected {
  client: Client;
  transport: StdioClientTransport;
  pid: number | undefined;
  closed: boolean;
  err: () => string;
}

async function connect(o: StartOptions): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: o.command,
    args: o.args,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...o.env },
    cwd: o.cwd,
    stderr: 'pipe',
    // The stock client refuses a message over 10 MiB; the bench reads bigger ones and flags them.
    maxBufferSize: BENCH_MAX_MESSAGE,
  });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => {
    err += d.toString('utf8');
    if (err.length > 50_000) err = err.slice(-50_000);
  });
  const client = new Client({ name: 'fleetls-bench', version: '0.1.0' });
  try {
    await withTimeout(client.connect(transport), o.timeoutMs ?? 30_000, `${o.name}: MCP initialize`);
  } catch (e) {
    await transport.close().catch(() => {});
    throw new Error(`${(e as Error).message}; stderr: ${err.slice(-800)}`);
  }
  const c: Connected = { client, transport, pid: transport.pid ?? undefined, closed: false, err: () => err };
  client.onclose = () => {
    c.closed = true;
    untrack(c.pid);
  };
  track(c.pid);
  return c;
}

/** An MCP server on stdio; a server that died (a crash, an OOM) is started again before the next call. */
export async function startMcp(o: StartOptions): Promise<McpServerProc> {
  let c = await connect(o);
  let restarts = 0;
  const proc: McpServerProc = {
    name: o.name,
    pid: c.pid,
    async call(tool, args, timeoutMs = 120_000) {
      if (c.closed) {
        restarts++;
        c = await connect(o);
        proc.pid = c.pid;
      }
      const t0 = performance.now();
      let res: Awaited<ReturnType<Client['callTool']>>;
      try {
        res = await c.client.callTool({ name: tool, arguments: args }, undefined, {
          timeout: timeoutMs,
          maxTotalTimeout: timeoutMs,
        });
      } catch (e) {
        const tail = c.err().trim().split('\n').slice(-3).join(' / ').slice(-400);
        throw new Error(`${(e as Error).message}${c.closed ? ` (the server exited; stderr: ${tail || 'empty'})` : ''}`);
      }
      const ms = performance.now() - t0;
      const content = (res.content ?? []) as { type: string; text?: string }[];
      const text = content.map((x) => x.text ?? '').join('\n');
      const json = JSON.stringify(res);
      return {
        ms,
        textBytes: content.reduce((n, x) => n + Buffer.byteLength(x.text ?? ''), 0),
        jsonBytes: Buffer.byteLength(json),
        jsonChars: json.length,
        isError: res.isError === true,
        text,
        structured: res.structuredContent as Record<string, unknown> | undefined,
      };
    },
    memory: () => (c.pid ? memoryOf(c.pid) : undefined),
    instructions: () => c.client.getInstructions(),
    stderr: () => c.err(),
    restarts: () => restarts,
    async close() {
      await withTimeout(c.client.close(), 10_000, `${o.name}: close`).catch(() => {});
      // A profiled server writes its profile as it exits: it is given 20 s to.
      if (c.pid && process.env.FLEETLS_BENCH_GATEWAY_NODE_ARGS) {
        const t0 = Date.now();
        while (Date.now() - t0 < 20_000 && memoryOf(c.pid)) await new Promise((r) => setTimeout(r, 200));
      }
      if (c.pid) {
        try {
          process.kill(c.pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
      untrack(c.pid);
    },
  };
  return proc;
}

/**
 * `fleetls serve` over stdio; without `inventory`, localhost is the embedded agent. `main` is
 * another build's gateway (ab-structure.ts runs two builds side by side).
 */
export function startFleetls(
  opts: { inventory?: string; cwd: string; home: string; extraArgs?: string[]; timeoutMs?: number; main?: string } = {
    cwd: '/',
    home: '/',
  },
) {
  const main = opts.main ?? GATEWAY_MAIN;
  if (!fs.existsSync(main)) throw new Error(`${path.relative(REPO_ROOT, main)} is not built`);
  // To profile the gateway under a section's load: e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
  const nodeArgs = (process.env.FLEETLS_BENCH_GATEWAY_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
  const args = [...nodeArgs, main];
  if (opts.inventory) args.push('--inventory', opts.inventory);
  args.push(...(opts.extraArgs ?? []), 'serve');
  return startMcp({
    name: 'fleetls',
    command: process.execPath,
    args,
    cwd: opts.cwd,
    env: {
      HOME: opts.home,
      FLEETLS_INVENTORY: opts.inventory ?? '',
      FLEETLS_LOG_LEVEL: 'warn',
    },
    ...(opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : {}),
  });
}

/** The peers live in their own install (bench/peers, `npm run bench:setup`), outside the product's `npm ci`. */
export function resolvePeer(pkg: string): string {
  const pj = path.join(REPO_ROOT, 'bench', 'peers', 'node_modules', pkg, 'package.json');
  if (!fs.existsSync(pj)) throw new Error(`${pkg} is not installed: run npm run bench:setup`);
  const meta = JSON.parse(fs.readFileSync(pj, 'utf8')) as { bin?: string | Record<string, string>; main?: string };
  const bin = typeof meta.bin === 'string' ? meta.bin : Object.values(meta.bin ?? {})[0];
  return path.join(path.dirname(pj), bin ?? meta.main ?? 'dist/index.js');
}

/** DesktopCommander with a throwaway HOME whose config allows `root` only, telemetry off. */
export function startDesktopCommander(root: string, home: string) {
  const cfgDir = path.join(home, '.claude-server-commander');
  fs.mkdirSync(cfgDir, { recursive: true });
  fs.writeFileSync(
    path.join(cfgDir, 'config.json'),
    JSON.stringify({ allowedDirectories: [root], telemetryEnabled: false, blockedCommands: [], defaultShell: 'sh' }),
  );
  const { command, args } = isolateNetwork(process.execPath, [
    resolvePeer('@wonderwhy-er/desktop-commander'),
    '--no-onboarding',
  ]);
  return startMcp({ name: 'desktop-commander', command, args, cwd: home, env: { HOME: home } });
}

/** @modelcontextprotocol/server-filesystem allowed `root`. */
export function startServerFilesystem(root: string, home: string) {
  const { command, args } = isolateNetwork(process.execPath, [
    resolvePeer('@modelcontextprotocol/server-filesystem'),
    root,
  ]);
  return startMcp({ name: 'server-filesystem', command, args, cwd: home, env: { HOME: home } });
}
