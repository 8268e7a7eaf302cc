// Issue 35, F2 and F5: the gateway believes no host beyond what it asked for. Hostile hosts in
// a real `fleetls serve`'s fleet, beside a real agent:
// - a fake agent (a grpc-js server of the Agent service, honouring backpressure) that answers
//   a Walk with far more rows than asked: the host is an `error` row naming the excess, its
//   stream is cancelled after a few messages (the gateway stopped reading), the real agent
//   (`calm`, named to come first in the answer) answers;
// - a NATS responder holding web-1's own nkey under the shipped permissions, that ignores Acks
//   and floods slices: web-1 is an `error` row naming the excess, the gateway cancels the walk,
//   db-1 (a real agent) answers Stat and the listing meanwhile;
// - a fake agent that sends one message and then nothing while keeping its stream: ended as
//   `timeout` "no rows for N s" once `host_stall_ms` passes;
// - a caller at its scan cap (a host that never answers holds its one scan) still gets `stat`.
// The gateway's peak memory under the floods is the bench's (bench/src/sections/hostile.ts).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Row, WalkSummary } from '@fleetls/core';
import { entryRow } from '@fleetls/core/testing';
import { treeEntryPaths } from '@fleetls/gateway/testing';
import {
  AGENT_FEATURES_METADATA,
  AGENT_VERSION_METADATA,
  encodedWalkService,
  encodeWalkResponse,
  loadContract,
} from '@fleetls/proto';
import { frame } from '@fleetls/runtime/grpc-frame';
import { agentSubjects, CHUNK_BYTES, HDR, type Registration } from '@fleetls/runtime/nats';
import { makeTree, waitFor } from '@fleetls/testkit';
import * as grpc from '@grpc/grpc-js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connect, type NatsConnection, headers as natsHeaders, nkeyAuthenticator } from '@nats-io/transport-node';
import { type AgentProcess, REPO_ROOT, startAgent } from '../helpers/agent-process.js';
import { stdioClient } from '../helpers/gateway-process.js';
import { accountsFor, type NatsNode, newKey, startNatsCluster } from '../helpers/nats-server.js';

/** A flood: this many messages of this many rows (each message ~30 KiB, as an agent's batch). */
const MESSAGES = 400;
const ROWS_PER_MESSAGE = 1000;
/** The stall limit the gateway is given (`host_stall_ms`). */
const STALL_MS = 1500;

interface Answer {
  hosts: { host: string; status: string; message?: string }[];
  entries?: { host?: string; path: string }[];
  next_cursor?: string;
}

const answerOf = (r: CallToolResult): Answer => {
  assert.ok(!r.isError, JSON.stringify(r.content));
  const a = r.structuredContent as unknown as Omit<Answer, 'entries'> & {
    dirs?: string[];
    entries?: { host?: string; name: string; dir?: number }[];
  };
  // list_directory's rows name their directory by index in `dirs`: their paths put back.
  const { dirs = [], entries, ...rest } = a;
  return entries ? { ...rest, entries: treeEntryPaths({ dirs, entries }) } : rest;
};
const statusOf = (a: Answer, host: string) => a.hosts.find((h) => h.host === host);

function rowsOf(m: number, n = ROWS_PER_MESSAGE): Row[] {
  return Array.from({ length: n }, (_, i) => entryRow(`f${m}-${i}`));
}

const SUMMARY: WalkSummary = {
  entriesSent: 0,
  entriesSeen: 0,
  entriesMatched: 0,
  truncations: [],
  elapsedMs: 0,
  depthLimitedDirs: 0,
};

type WalkCall = grpc.ServerWritableStream<unknown, Buffer>;

/** What a fake agent's walks did: messages written, and whether the gateway cancelled one. */
interface Seen {
  walks: number;
  written: number;
  cancelled: number;
  finished: number;
}

/** A fake agent: a grpc-js server of the contract's Agent service whose Walk runs `walk`; Stat is not found. */
async function fakeAgent(walk: (call: WalkCall, seen: Seen) => Promise<void>) {
  const seen: Seen = { walks: 0, written: 0, cancelled: 0, finished: 0 };
  // Walk's messages are encoded here.
  const served = encodedWalkService();
  const server = new grpc.Server();
  server.addService(served, {
    Walk: (call: WalkCall) => {
      seen.walks++;
      call.on('cancelled', () => seen.cancelled++);
      const md = new grpc.Metadata();
      md.set(AGENT_VERSION_METADATA, 'hostile-1');
      md.set(AGENT_FEATURES_METADATA, '');
      call.sendMetadata(md);
      void walk(call, seen);
    },
    Stat: (_call: unknown, callback: grpc.sendUnaryData<unknown>) =>
      callback({ code: grpc.status.NOT_FOUND, details: 'nothing here' } as grpc.ServiceError),
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return { address: `127.0.0.1:${port}`, seen, close: () => server.forceShutdown() };
}

/** Writes `msg`, waiting for the stream to drain when it says so; false once the call is cancelled. */
async function write(call: WalkCall, msg: Buffer): Promise<boolean> {
  if (call.cancelled) return false;
  if (call.write(msg)) return true;
  await new Promise<void>((resolve) => {
    const done = () => {
      call.off('drain', done);
      call.off('cancelled', done);
      resolve();
    };
    call.on('drain', done);
    call.on('cancelled', done);
  });
  return !call.cancelled;
}

/** Answers one Walk with MESSAGES messages of ROWS_PER_MESSAGE rows, as fast as the caller reads. */
async function flood(call: WalkCall, seen: Seen): Promise<void> {
  for (let m = 0; m < MESSAGES; m++) {
    if (!(await write(call, encodeWalkResponse(rowsOf(m))))) return;
    seen.written++;
  }
  if (!(await write(call, encodeWalkResponse([], SUMMARY)))) return;
  seen.finished++;
  call.end();
}

/** Sends one message of three rows, then nothing, keeping the stream open until the caller goes. */
async function stall(call: WalkCall, seen: Seen): Promise<void> {
  await write(call, encodeWalkResponse(rowsOf(0, 3)));
  seen.written++;
}

/** Never answers: the stream stays open until the caller cancels it. */
async function silent(): Promise<void> {}

describe('hostile agents over gRPC', () => {
  let dir: string;
  let tree: string;
  let calm: AgentProcess;
  let flooder: Awaited<ReturnType<typeof fakeAgent>>;
  let staller: Awaited<ReturnType<typeof fakeAgent>>;
  let mute: Awaited<ReturnType<typeof fakeAgent>>;
  let client: Client;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fleetls-hostile-'));
    tree = makeTree(join(dir, 'tree'), { 'a.txt': 'a', 'b.txt': 'bb', 'sub/c.txt': 'c' });
    calm = await startAgent({ allow: [tree] });
    flooder = await fakeAgent(flood);
    staller = await fakeAgent(stall);
    mute = await fakeAgent(silent);
    const inventory = join(dir, 'fleetls.yaml');
    writeFileSync(
      inventory,
      [
        'hosts:',
        `  calm: { agent: "${calm.address}" }`,
        `  flood: { agent: "${flooder.address}" }`,
        `  stall: { agent: "${staller.address}" }`,
        `  mute: { agent: "${mute.address}" }`,
        'agent_tls: insecure',
        `defaults: { host_stall_ms: ${STALL_MS}, call_deadline_ms: 8000, scan_host_deadline_ms: 60000, scans_per_principal: 1 }`,
        '',
      ].join('\n'),
    );
    ({ client } = await stdioClient('hostile-hosts', { FLEETLS_INVENTORY: inventory }));
  });

  after(async () => {
    await client?.close();
    await calm?.stop();
    for (const f of [flooder, staller, mute]) f?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a host that sends far more rows than asked is cut off with an error row; the others answer', async () => {
    const a = answerOf(
      (await client.callTool({
        name: 'list_directory',
        arguments: { host: 'calm,flood', path: tree, depth: 1 },
      })) as CallToolResult,
    );
    assert.equal(statusOf(a, 'calm')?.status, 'ok', JSON.stringify(a.hosts));
    assert.deepEqual(
      (a.entries ?? []).filter((e) => e.host === 'calm').map((e) => e.path),
      ['a.txt', 'b.txt', 'sub'],
    );
    const f = statusOf(a, 'flood');
    assert.equal(f?.status, 'error', JSON.stringify(a.hosts));
    assert.match(f?.message ?? '', /more than its request allows \(more than max_entries=\d+ rows\)/);
    // The gateway stopped reading: the fake agent's call was cancelled a few messages in
    // (what HTTP/2 flow control and the channel's 256 KiB queue let through), not read whole.
    await waitFor(() => flooder.seen.cancelled === 1, { timeoutMs: 20_000, what: 'the flood cancelled' });
    assert.equal(flooder.seen.finished, 0);
    assert.ok(flooder.seen.written < MESSAGES / 4, `${flooder.seen.written} of ${MESSAGES} messages written`);
  });

  it('a host that keeps its stream and sends no more rows is ended as timeout after host_stall_ms', async () => {
    const a = answerOf(
      (await client.callTool({
        name: 'list_directory',
        arguments: { host: 'calm,stall', path: tree, depth: 1 },
      })) as CallToolResult,
    );
    assert.equal(statusOf(a, 'calm')?.status, 'ok', JSON.stringify(a.hosts));
    const s = statusOf(a, 'stall');
    assert.equal(s?.status, 'timeout', JSON.stringify(a.hosts));
    assert.match(s?.message ?? '', new RegExp(`no rows for ${STALL_MS / 1000} s`));
    // Its rows before the stall stand; its walk was cancelled.
    assert.equal((a.entries ?? []).filter((e) => e.host === 'stall').length, 3);
    await waitFor(() => staller.seen.cancelled === staller.seen.walks, { what: 'the stalled walk cancelled' });
  });

  it('a caller at its scan cap still gets calls that need no scan', async () => {
    // `mute` never answers: the call outlives its deadline as a scan, the caller's only one.
    const a = answerOf(
      (await client.callTool({
        name: 'list_directory',
        arguments: { host: 'calm,mute', path: tree, depth: 1 },
      })) as CallToolResult,
    );
    assert.equal(statusOf(a, 'mute')?.status, 'pending', JSON.stringify(a.hosts));
    assert.ok(a.next_cursor);
    const st = (await client.callTool({ name: 'stat', arguments: { host: 'calm', path: tree } })) as CallToolResult;
    assert.equal(st.isError, undefined, JSON.stringify(st.content));
    // Another call that outlives its deadline is still refused, naming the cap.
    const again = (await client.callTool({
      name: 'list_directory',
      arguments: { host: 'mute', path: tree, depth: 1 },
    })) as CallToolResult;
    assert.equal(again.isError, true);
    assert.match(JSON.stringify(again.content), /1 scans of this caller are still running \(at most 1\)/);
  });
});

// ---- NATS ------------------------------------------------------------------------------------

/** Slices the NATS flood sends, each a whole framed message of rows (under CHUNK_BYTES). */
const SLICES = 600;

/** The path a Walk request asks for. */
function walkPath(request: Uint8Array): string {
  const walk = loadContract().proto.fleetls.v1.Agent.service.Walk;
  return (walk.requestDeserialize(Buffer.from(request)) as { path: string }).path;
}

/** A framed message of rows filling most of one slice. */
function floodSlice(i: number): Buffer {
  const rows = rowsOf(i, 1500);
  let msg = frame(encodeWalkResponse(rows));
  while (msg.length > CHUNK_BYTES) {
    rows.length = Math.floor(rows.length * 0.8);
    msg = frame(encodeWalkResponse(rows));
  }
  return msg;
}

describe('a hostile host on NATS with its own credentials', () => {
  let dir: string;
  let tree: string;
  let nodes: NatsNode[];
  let db: AgentProcess;
  let hostile: NatsConnection;
  let gwNc: NatsConnection;
  let client: Client;
  let presence: { stop(): void } | undefined;
  const flood = { walks: 0, published: 0, cancels: 0, acks: 0 };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fleetls-hostile-nats-'));
    tree = makeTree(join(dir, 'tree'), { 'a.txt': 'aaa', 'sub/b.txt': 'b' });
    const keys = { web: newKey(dir, 'web-1'), db: newKey(dir, 'db-1'), gw: newKey(dir, 'gateway') };
    nodes = await startNatsCluster({
      dir: join(dir, 'nats'),
      extra: accountsFor({ 'web-1': keys.web, 'db-1': keys.db }, keys.gw),
    });
    const url = nodes[0].url;
    gwNc = await connect({ servers: [url], authenticator: nkeyAuthenticator(keys.gw.seed) });
    const { openRegistryBucket } = await import(join(REPO_ROOT, 'packages/hosts/dist/agent/nats/registry.js'));
    await openRegistryBucket(gwNc);
    db = await startAgent({
      natsOnly: true,
      allow: [tree],
      args: ['--connect', url, '--name', 'db-1', '--heartbeat-ms', '500', '--nats-creds', keys.db.seedFile],
    });
    // web-1's own key: it answers its own requests, as its agent would, with a flood.
    hostile = await connect({
      servers: [url],
      authenticator: nkeyAuthenticator(keys.web.seed),
      inboxPrefix: '_INBOX_web-1',
    });
    const subjects = agentSubjects('web-1');
    hostile.subscribe(subjects.walk, {
      callback: (err, msg) => {
        if (err || !msg.reply) return;
        flood.walks++;
        const h0 = natsHeaders();
        h0.set(HDR.seq, '0');
        h0.set(HDR.version, 'hostile-1');
        h0.set(HDR.features, '');
        hostile.publish(msg.reply, undefined, { headers: h0 });
        // Every slice at once, Acks ignored: the window the gateway granted is not waited for.
        // Asked for `sub`, small slices of two rows each (far under max_entries: only the
        // window can refuse them); else slices of as many rows as fit.
        const small = walkPath(msg.data).endsWith('/sub');
        for (let seq = 1; seq <= SLICES; seq++) {
          const h = natsHeaders();
          h.set(HDR.seq, String(seq));
          if (small && seq === SLICES) h.set(HDR.end, '1');
          const data = small
            ? frame(encodeWalkResponse(rowsOf(seq, 2), seq === SLICES ? SUMMARY : undefined))
            : floodSlice(seq);
          hostile.publish(msg.reply, data, { headers: h });
          flood.published++;
        }
      },
    });
    hostile.subscribe(subjects.ctlAll, {
      callback: (_err, msg) => {
        if (msg.headers?.get(HDR.cancel)) flood.cancels++;
        if (msg.headers?.get(HDR.ack)) flood.acks++;
      },
    });
    hostile.subscribe(subjects.stat, {
      callback: (_err, msg) => {
        const h = natsHeaders();
        h.set(HDR.status, String(grpc.status.NOT_FOUND));
        h.set(HDR.details, 'nothing here');
        h.set(HDR.version, 'hostile-1');
        msg.respond(undefined, { headers: h });
      },
    });
    await hostile.flush();
    const { startPresence } = await import(join(REPO_ROOT, 'packages/agent/dist/carriers/nats-presence.js'));
    const { createLogger } = await import('@fleetls/gateway');
    const registration: Registration = {
      name: 'web-1',
      labels: {},
      groups: [],
      version: 'hostile-1',
      capabilities: ['walk', 'stat'],
      heartbeatMs: 500,
      startedAt: new Date().toISOString(),
    };
    presence = startPresence({ nc: hostile, registration, logger: createLogger({ name: 'hostile', level: 'silent' }) });
    await (presence as unknown as { beat(): Promise<void> }).beat();
    ({ client } = await stdioClient(
      'hostile-nats',
      { FLEETLS_INVENTORY: '' },
      { args: ['--nats', url, '--nats-creds', keys.gw.seedFile] },
    ));
  });

  after(async () => {
    presence?.stop();
    await client?.close();
    await hostile?.close();
    await gwNc?.close();
    await db?.stop();
    for (const n of nodes ?? []) await n.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a flood of rows breaks the host: an error row naming the excess, the walk cancelled, db-1 answers', async () => {
    const list = async () =>
      answerOf(
        (await client.callTool({
          name: 'list_directory',
          arguments: { host: 'all', path: tree, depth: 1 },
        })) as CallToolResult,
      );
    await waitFor(async () => (await list()).hosts.length === 2 || undefined, {
      timeoutMs: 60_000,
      everyMs: 500,
      what: 'both hosts registered',
    });
    const walksBefore = flood.walks;
    const stats = client.callTool({ name: 'stat', arguments: { host: 'db-1', path: tree } });
    const a = await list();
    assert.equal(flood.walks, walksBefore + 1);
    assert.equal(statusOf(a, 'db-1')?.status, 'ok', JSON.stringify(a.hosts));
    assert.deepEqual(
      (a.entries ?? []).filter((e) => e.host === 'db-1').map((e) => e.path),
      ['a.txt', 'sub'],
    );
    const w = statusOf(a, 'web-1');
    assert.equal(w?.status, 'error', JSON.stringify(a.hosts));
    // Whichever bites first: a slice past the window granted, or rows past max_entries.
    assert.match(
      w?.message ?? '',
      /more than its request allows \((slice \d+ past the window of \d+ after slice \d+|more than max_entries=\d+ rows)\)/,
    );
    assert.equal(((await stats) as CallToolResult).isError, undefined);
    await waitFor(() => flood.cancels >= 1, { what: 'the flooded walk cancelled' });
  });

  it('a flood of small slices, far under max_entries, breaks at the window: the rest is not queued', async () => {
    const cancels = flood.cancels;
    const a = answerOf(
      (await client.callTool({
        name: 'list_directory',
        arguments: { host: 'all', path: join(tree, 'sub'), depth: 1 },
      })) as CallToolResult,
    );
    assert.equal(statusOf(a, 'db-1')?.status, 'ok', JSON.stringify(a.hosts));
    const w = statusOf(a, 'web-1');
    assert.equal(w?.status, 'error', JSON.stringify(a.hosts));
    assert.match(
      w?.message ?? '',
      /more than its request allows \((slice \d+ past the window of 8 after slice \d+|\d+ replies waiting, over the window of 8)\)/,
    );
    // Far fewer rows than were sent: what arrived within the window at most.
    assert.ok((a.entries ?? []).filter((e) => e.host === 'web-1').length <= 2 * 10);
    await waitFor(() => flood.cancels > cancels, { what: 'the flooded walk cancelled' });
  });
});
