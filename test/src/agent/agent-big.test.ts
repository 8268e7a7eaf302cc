// Big trees against the real agent: a 200,000-file directory costs memory bounded by the
// cap, and a cancelled walk stops the walker (seen in the agent's walk-end log line).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { AgentClient } from '@fleetls/proto';
import * as grpc from '@grpc/grpc-js';
import { type AgentProcess, agentClient, healthWatch, startAgent, walkAll } from '../helpers/agent-process.js';

const FLAT = 200_000;
const DIRS = 200;
// What a stalled client lets the walker read ahead is bounded by the credits and the transport's
// buffers, not by the tree: fresh-clone CI runs saw 12,950-25,200 entries, and 25,200 failed a
// 50,200-entry tree's "less than half". Twice the tree keeps the bound on what the test means.
const PER_DIR = 500;
/** Entries of a whole walk of wide/: its directories and their files. */
const WIDE_ENTRIES = DIRS * PER_DIR + DIRS;

let root: string;
let agent: AgentProcess;
let client: AgentClient;

/** Empty files, but the last `sized` get apparent size i (sparse: no data written). */
function makeFlat(dir: string, n: number, sized: number): void {
  fs.mkdirSync(dir);
  for (let i = 0; i < n; i++) {
    const fd = fs.openSync(path.join(dir, `f${i}`), 'w');
    if (i >= n - sized) fs.ftruncateSync(fd, i);
    fs.closeSync(fd);
  }
}

/** Creating 300,000 files is I/O-bound on a disk; a RAM-backed tmpfs makes it several times faster. */
function scratchBase(): string {
  const shm = '/dev/shm';
  try {
    fs.accessSync(shm, fs.constants.W_OK);
    return shm;
  } catch {
    return os.tmpdir();
  }
}

function memKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  assert.ok(m, `${field} missing from /proc/${pid}/status`);
  return Number(m[1]);
}

/**
 * A walk of the whole wide tree by a slow client: it stops reading at the first message
 * (`stalled`), so back-pressure reaches the walker.
 */
function stallingWalk(c: AgentClient, deadlineMs: number) {
  const call = c.Walk(
    { path: path.join(root, 'wide'), maxDepth: 2, maxItemsPerDir: 1000, maxEntries: 1_000_000 },
    new grpc.Metadata(),
    { deadline: Date.now() + deadlineMs },
  );
  const status = new Promise<grpc.StatusObject>((resolve) => call.on('status', resolve));
  call.on('error', () => {});
  const stalled = new Promise<void>((resolve) =>
    call.once('data', () => {
      call.pause();
      resolve();
    }),
  );
  return { call, status, stalled };
}

before(async () => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(scratchBase(), 'fleetls-big-')));
  makeFlat(path.join(root, 'flat'), FLAT, 1000);
  const wide = path.join(root, 'wide');
  fs.mkdirSync(wide);
  for (let d = 0; d < DIRS; d++) {
    const dir = path.join(wide, `d${String(d).padStart(3, '0')}`);
    fs.mkdirSync(dir);
    for (let i = 0; i < PER_DIR; i++) fs.closeSync(fs.openSync(path.join(dir, `file-with-a-longish-name-${i}`), 'w'));
  }
  agent = await startAgent({ allow: [root] });
  client = agentClient(agent.address);
});

after(async () => {
  client?.close();
  await agent?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('fleetls-agent on big trees', () => {
  it('returns the 100 largest of a 200,000-file directory with resident memory growing < 50 MB', async (t) => {
    const before = memKb(agent.pid, 'VmRSS');
    const { rows, summary } = await walkAll(client, {
      path: path.join(root, 'flat'),
      maxDepth: 1,
      maxItemsPerDir: 100,
      capRoot: true,
      order: 'ORDER_SIZE',
      direction: 'DIRECTION_DESCENDING',
    });
    const peak = memKb(agent.pid, 'VmHWM');
    const entries = rows.flatMap((r) => (r.kind === 'entry' ? [r.entry] : []));
    assert.deepEqual(
      entries.map((e) => e.size),
      Array.from({ length: 100 }, (_, i) => FLAT - 1 - i),
    );
    assert.deepEqual(
      entries.map((e) => e.path.toString()),
      Array.from({ length: 100 }, (_, i) => `f${FLAT - 1 - i}`),
    );
    const trunc = rows.find((r) => r.kind === 'truncation');
    assert.ok(trunc?.kind === 'truncation');
    assert.deepEqual(
      { shown: trunc.truncation.shown, total: trunc.truncation.total, reason: trunc.truncation.reason },
      { shown: 100, total: FLAT, reason: 'items_per_dir' },
    );
    assert.equal(summary.entriesSeen, FLAT);
    const growthMb = (peak - before) / 1024;
    t.diagnostic(`RSS before ${before} kB, peak ${peak} kB (+${growthMb.toFixed(1)} MB); walk ${summary.elapsedMs} ms`);
    assert.ok(growthMb < 50, `agent peak RSS grew ${growthMb.toFixed(1)} MB (from ${before} kB to ${peak} kB)`);
  });

  it('stops the walker when the client cancels', async (t) => {
    const { call, status, stalled } = stallingWalk(client, 30_000);
    await stalled;
    // Time for a walker that ignored back-pressure to read on: the bound asserted below is what it tests.
    await new Promise((r) => setTimeout(r, 300));
    call.cancel();
    assert.equal((await status).code, grpc.status.CANCELLED);
    const end = await agent.waitForLog((l) => l.msg === 'walk end' && l.cancelled === true);
    assert.equal(typeof end.entriesSeen, 'number');
    t.diagnostic(`walker saw ${end.entriesSeen} of ${WIDE_ENTRIES} entries, sent ${end.entriesSent}`);
    // What the walker reads after the client stops is bounded by the credits and the
    // transport's buffers (HTTP/2 window, socket buffers), a fraction of the tree.
    assert.ok(
      (end.entriesSeen as number) < WIDE_ENTRIES / 2,
      `walker saw ${end.entriesSeen} of ${WIDE_ENTRIES} entries after the cancel`,
    );
    // The agent still serves.
    const ok = await walkAll(client, { path: path.join(root, 'wide'), maxDepth: 1 });
    assert.equal(ok.rows.filter((r) => r.kind === 'entry').length, DIRS);
  });

  it('stops the walker at the client deadline', async (t) => {
    const { status } = stallingWalk(client, 1000);
    assert.equal((await status).code, grpc.status.DEADLINE_EXCEEDED);
    // Whichever deadline fires first stops the walker: the client's (the walk is cancelled) or
    // the agent's own, set a little before it from the call's deadline (the walk ends early with
    // a deadline truncation the stalled client never reads). Both must stop it well short.
    const start = await agent.waitForLog(
      (l) => l.msg === 'walk start' && Number((l.req as { deadlineMs?: number } | undefined)?.deadlineMs) <= 1000,
    );
    const end = await agent.waitForLog((l) => l.msg === 'walk end' && l.call === start.call);
    t.diagnostic(`walker saw ${end.entriesSeen} of ${WIDE_ENTRIES} entries before the deadline stopped it`);
    assert.ok(
      (end.entriesSeen as number) < WIDE_ENTRIES / 2,
      `walker saw ${end.entriesSeen} of ${WIDE_ENTRIES} entries`,
    );
    assert.equal(agent.child.exitCode, null);
  });

  it('refuses walks beyond --max-concurrent-walks with RESOURCE_EXHAUSTED', async () => {
    const a = await startAgent({ allow: [root], args: ['--max-concurrent-walks', '1'] });
    const c = agentClient(a.address);
    try {
      const first = stallingWalk(c, 30_000);
      await first.stalled;
      await assert.rejects(walkAll(c, { path: path.join(root, 'wide'), maxDepth: 1 }), (err) => {
        assert.equal((err as grpc.ServiceError).code, grpc.status.RESOURCE_EXHAUSTED);
        assert.match((err as grpc.ServiceError).details, /max_concurrent_walks is 1/);
        return true;
      });
      first.call.cancel();
      await first.status;
      await a.waitForLog((l) => l.msg === 'walk end' && l.cancelled === true);
      const ok = await walkAll(c, { path: path.join(root, 'wide'), maxDepth: 1 });
      assert.equal(ok.rows.length, DIRS);
    } finally {
      c.close();
      await a.stop();
    }
  });

  it('on SIGTERM reports NOT_SERVING, drains the walk in flight, then exits 0', async () => {
    const a = await startAgent({ allow: [root] });
    const c = agentClient(a.address);
    try {
      const health = healthWatch(a.address);
      await health.until('SERVING');
      const walk = stallingWalk(c, 30_000);
      await walk.stalled;
      a.child.kill('SIGTERM');
      await a.waitForLog((l) => l.msg === 'shutting down');
      await health.until('NOT_SERVING');
      // Read on: the walk in flight is served to its end after SIGTERM (an agent that quit
      // at once would cut it, UNAVAILABLE or CANCELLED), and only then does the agent exit 0.
      let rows = 1;
      walk.call.on('data', () => rows++);
      walk.call.resume();
      const status = await walk.status;
      assert.equal(status.code, grpc.status.OK, `the walk in flight ended ${status.details}`);
      assert.ok(rows > 1, 'rows came after SIGTERM');
      assert.equal(await a.stop(), 0);
      health.close();
    } finally {
      c.close();
    }
  });
});
