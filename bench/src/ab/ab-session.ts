#!/usr/bin/env node
// Issue 34 ask 3: "the HTTP/2 session from connect-node unless the bench's fan-out shows it
// slower". The gateway's fan-out, its client side alone: one ranked Walk (top 10) to each of
// 200 stub agents at once, the same request bytes, the same framing, the same fast decoder,
// over two sessions in turns (ABBA by round, one warm-up round):
//   channel       the agent channel as shipped (@fleetls/hosts, agent/http2/channel.ts over
//                 the hand-written agent/http2/session.ts: its own socket, the wait for
//                 SETTINGS, its keepalive)
//   connect-node  a bare @connectrpc/connect-node Http2SessionManager per agent (keepalive
//                 pings at 30 s / 10 s), each call a stream from manager.request() read as
//                 channel.ts's startCall reads one: headers, one framed request, messages
//                 deframed, status from the trailers, handed on through one generator
// Each side keeps its sessions across fan-outs, as the gateway does. Measured: wall time per
// fan-out and this process's CPU per fan-out (the gateway's share; the stubs run elsewhere).
// With --then DIR the other side is that build's channel instead (DIR a built checkout). How
// the switch to connect-node's session was judged (bench/results/grpc-client.why.md): run from
// a checkout built with bench/patches/connect-node-session.patch applied, --then a build without.
//   node bench/dist/ab/ab-session.js [--then DIR] [--rounds N] [--agents N] [--out DIR]
import * as fs from 'node:fs';
import type * as http2 from 'node:http2';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Http2SessionManager } from '@connectrpc/connect-node';
import { createAgentChannel } from '@fleetls/gateway/testing';
import { decodeWalkResponse, loadContract, SERVICE_NAME } from '@fleetls/proto';
import { frame } from '@fleetls/runtime/grpc-frame';
import type * as grpc from '@grpc/grpc-js';
import { log } from '../context.js';
import { loadAverage, machineLine } from '../helpers/machine.js';
import { killAll, REPO_ROOT, startAgentHost } from '../helpers/proc.js';
import { fmtMs, median } from '../helpers/stats.js';
import { benchDir } from '../trees.js';

const USAGE = `usage: node bench/dist/ab/ab-session.js [--then DIR] [--rounds N] [--agents N] [--out DIR]
  --then    a built checkout whose channel is the other side (default: a bare Http2SessionManager)
  --rounds  timed rounds after one warm-up round, sides in turns ABBA (default 16)
  --agents  stub agents, 50 to a process (default 200)
  --out     directory for results/session.md (default: bench/)`;

/** One fan-out's calls per side per round. */
const PER_ROUND = 3;
const CALL_TIMEOUT_MS = 30_000;

type Walker = (address: string) => Promise<number>;

interface Side {
  name: string;
  walk: Walker;
  close(): void;
}

type ChannelFactory = typeof createAgentChannel;

/** A build's agent channel: one per agent, kept across fan-outs. */
function channelSide(name: string, open: ChannelFactory, method: string, request: Uint8Array): Side {
  const channels = new Map<string, ReturnType<ChannelFactory>>();
  return {
    name,
    async walk(address) {
      let channel = channels.get(address);
      if (!channel) {
        channel = open({ address, connectTimeoutMs: 5000 });
        channels.set(address, channel);
      }
      let rows = 0;
      const signal = new AbortController().signal;
      for await (const bytes of channel.serverStream(method, request, { timeoutMs: CALL_TIMEOUT_MS, signal })) {
        rows += decodeWalkResponse(bytes).rows.length;
      }
      return rows;
    },
    close() {
      for (const c of channels.values()) c.close();
    },
  };
}

/** The messages of one framed stream (no compression: the agent sends none). */
function deframe(stream: http2.ClientHttp2Stream, onMessage: (msg: Buffer) => void): void {
  let pending: Buffer = Buffer.alloc(0);
  stream.on('data', (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    while (pending.length >= 5) {
      const length = pending.readUInt32BE(1);
      if (pending.length < 5 + length) break;
      onMessage(pending.subarray(5, 5 + length));
      pending = pending.subarray(5 + length);
    }
  });
}

/** connect-node's session manager, one per agent, kept across fan-outs. */
function connectNodeSide(method: string, request: Uint8Array): Side {
  const managers = new Map<string, Http2SessionManager>();
  const managerOf = (address: string): Http2SessionManager => {
    let manager = managers.get(address);
    if (!manager) {
      manager = new Http2SessionManager(
        `http://${address}`,
        { pingIntervalMs: 30_000, pingTimeoutMs: 10_000 },
        // As the channel: Node's 10 MiB default resets a session under a few hundred calls.
        { maxSessionMemory: Number.MAX_SAFE_INTEGER },
      );
      managers.set(address, manager);
    }
    return manager;
  };
  return {
    name: 'bare connect-node Http2SessionManager',
    async walk(address) {
      const manager = managerOf(address);
      const stream = await manager.request(
        'POST',
        method,
        {
          'content-type': 'application/grpc',
          te: 'trailers',
          'grpc-accept-encoding': 'identity',
          'grpc-timeout': `${CALL_TIMEOUT_MS}m`,
        },
        { endStream: false },
      );
      stream.end(frame(request));
      // As the channel hands messages on: a queue the stream fills, one generator the caller reads.
      const queue: Buffer[] = [];
      let ended = false;
      let grpcStatus: string | undefined;
      let wake: (() => void) | undefined;
      const notify = () => {
        const w = wake;
        wake = undefined;
        w?.();
      };
      const timer = setTimeout(() => stream.close(), CALL_TIMEOUT_MS);
      deframe(stream, (msg) => {
        manager.notifyResponseByteRead(stream);
        queue.push(msg);
        notify();
      });
      stream.on('trailers', (t) => {
        grpcStatus = String(t['grpc-status']);
      });
      stream.on('error', () => {});
      stream.on('close', () => {
        clearTimeout(timer);
        ended = true;
        notify();
      });
      async function* messages(): AsyncGenerator<Buffer> {
        for (;;) {
          const msg = queue.shift();
          if (msg) yield msg;
          else if (ended) break;
          else await new Promise<void>((resolve) => (wake = resolve));
        }
        if (grpcStatus !== '0')
          throw new Error(`${address}: grpc-status ${grpcStatus ?? 'none'}, rst ${stream.rstCode}`);
      }
      let rows = 0;
      for await (const bytes of messages()) rows += decodeWalkResponse(bytes).rows.length;
      return rows;
    },
    close() {
      for (const m of managers.values()) m.abort();
    },
  };
}

interface Sample {
  wallMs: number;
  cpuMs: number;
}

async function fanOut(side: Side, addresses: string[]): Promise<Sample> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const rows = await Promise.all(addresses.map((a) => side.walk(a)));
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const want = 10 * addresses.length;
  const got = rows.reduce((a, b) => a + b, 0);
  if (got !== want) throw new Error(`${side.name}: ${got} rows, ${want} expected`);
  return { wallMs, cpuMs: (cpu.user + cpu.system) / 1000 };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rounds: { type: 'string', default: '16' },
      agents: { type: 'string', default: '200' },
      out: { type: 'string', default: path.join(REPO_ROOT, 'bench') },
      // biome-ignore lint/suspicious/noThenProperty: the flag is --then; parseArgs never awaits its options
      then: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const rounds = Number(values.rounds);
  const agents = Number(values.agents);
  if (!Number.isInteger(rounds) || rounds < 1 || rounds > 200)
    throw new Error(`--rounds: 1 to 200, got ${values.rounds}`);
  if (!Number.isInteger(agents) || agents < 50 || agents % 50 !== 0 || agents > 1000)
    throw new Error(`--agents: a multiple of 50 from 50 to 1000, got ${values.agents}`);
  const loadStart = loadAverage();
  const started = new Date();
  const { packageDefinition } = loadContract();
  const walkMethod = (packageDefinition[SERVICE_NAME] as Record<string, grpc.MethodDefinition<unknown, unknown>>).Walk;
  // The fan-out section's ranked request (top 10 by size, descending); a stub answers it whatever its path.
  const request = walkMethod.requestSerialize({
    path: '/',
    maxDepth: 10,
    shape: 'SHAPE_RANKED',
    order: 'ORDER_SIZE',
    direction: 'DIRECTION_DESCENDING',
    topN: 10,
  });
  const stubs = await Promise.all(Array.from({ length: agents / 50 }, () => startAgentHost('stub', 50, benchDir())));
  const addresses = stubs.flatMap((h) => h.addresses);
  const here = channelSide('channel (agent/http2/channel.ts)', createAgentChannel, walkMethod.path, request);
  // --then: the other side is another build's channel (its @fleetls/hosts), not the bare manager.
  const other = values.then
    ? channelSide(
        `then's channel (${values.then.split('/').pop()})`,
        (await import(pathToFileURL(path.resolve(values.then, 'packages/hosts/dist/agent/index.js')).href))
          .createAgentChannel as ChannelFactory,
        walkMethod.path,
        request,
      )
    : connectNodeSide(walkMethod.path, request);
  const sides = values.then ? [other, here] : [here, other];
  const [nameA, nameB] = values.then
    ? ['then: channel of --then', 'now: channel of this build']
    : ['shipped channel', 'bare connect-node Http2SessionManager'];
  const ratioName = values.then ? 'now ÷ then' : 'bare ÷ channel';
  const samples = sides.map((): Sample[] => []);
  const perRound: number[][] = [[], []];
  try {
    for (let round = 0; round <= rounds; round++) {
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      const got: Sample[][] = [[], []];
      for (const i of order) {
        for (let k = 0; k < PER_ROUND; k++) got[i].push(await fanOut(sides[i], addresses));
      }
      log(
        `round ${round}${round === 0 ? ' (warm-up)' : ''}: ${sides
          .map((s, i) => `${s.name} ${got[i].map((x) => `${fmtMs(x.wallMs)}/${fmtMs(x.cpuMs)} cpu`).join(', ')}`)
          .join('; ')}`,
      );
      if (round === 0) continue;
      for (const i of [0, 1]) {
        samples[i].push(...got[i]);
        perRound[i].push(median(got[i].map((x) => x.cpuMs)));
      }
    }
  } finally {
    for (const s of sides) s.close();
    await Promise.all(stubs.map((s) => s.stop()));
    killAll();
  }
  const loadEnd = loadAverage();
  const med = (i: number, k: keyof Sample) => median(samples[i].map((x) => x[k]));
  const ratios = perRound[1].map((c, r) => c / perRound[0][r]).sort((a, b) => a - b);
  const md = [
    `### The agent client's HTTP/2 session: ${nameA} vs ${nameB} (${started.toISOString().slice(0, 16)}Z)`,
    '',
    `${machineLine()}; load average ${loadStart} at the start, ${loadEnd} at the end. ${agents} stub agents (canned ranked answer, 10 rows; ${agents / 50} processes), one Walk to each at once per fan-out, ${PER_ROUND} fan-outs per side per round, ${rounds} rounds in turns (ABBA) after a warm-up round; sessions kept across fan-outs. CPU is the client process's (user + system) per fan-out.`,
    '',
    `| Per fan-out (median) | ${nameA} | ${nameB} | ${ratioName} |`,
    '|---|---|---|---|',
    `| client CPU (n=${samples[0].length}/${samples[1].length}) | ${fmtMs(med(0, 'cpuMs'))} | ${fmtMs(med(1, 'cpuMs'))} | ${(med(1, 'cpuMs') / med(0, 'cpuMs')).toFixed(2)}× (per round ${ratios[0].toFixed(2)}×–${ratios[ratios.length - 1].toFixed(2)}×) |`,
    `| wall | ${fmtMs(med(0, 'wallMs'))} | ${fmtMs(med(1, 'wallMs'))} | ${(med(1, 'wallMs') / med(0, 'wallMs')).toFixed(2)}× |`,
    '',
  ].join('\n');
  const file = path.join(values.out, 'results', 'session.md');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, md);
  process.stdout.write(md);
  log(`wrote ${path.relative(process.cwd(), file)}`);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
