import assert from 'node:assert/strict';
import { getEventListeners, once } from 'node:events';
import { test } from 'node:test';
import { FleetError, type HostStatus, type Row, WALK_DEFAULTS, type WalkSummary } from '@fleetls/core';
import { entryRow } from '@fleetls/core/testing';
import { DeadBackend, dir, FakeFleet, file, HangingBackend, MemoryBackend } from '../testing/fake-fleet.js';
import { walkHost } from '../tools/shared/host-walks.js';
import { fanOut, hostSignals } from './fan-out.js';

const tree = dir({ a: file(1) });
const WALK = { ...WALK_DEFAULTS, path: '/' };
test('one failing host is a status row; the others answer', async () => {
  const fleet = new FakeFleet({ h1: new MemoryBackend(tree), dead: new DeadBackend(), h2: new MemoryBackend(tree) });
  const seen: [string, number, number][] = [];
  const out = await fanOut(fleet, fleet.hosts(), async (_b, host) => host.name.toUpperCase(), {
    concurrency: 2,
    deadlineMs: 5000,
    onHostDone: (s, done, total) => seen.push([s.host, done, total]),
  });
  assert.deepEqual(
    out.map((r) => [r.host.name, r.status.status, r.value]),
    [
      ['h1', 'ok', 'H1'],
      ['dead', 'ok', 'DEAD'],
      ['h2', 'ok', 'H2'],
    ],
  );
  const failing = await fanOut(fleet, fleet.hosts(), (b, _h, signal) => b.probe(signal), {
    concurrency: 8,
    deadlineMs: 5000,
  });
  assert.deepEqual(
    failing.map((r) => r.status.status),
    ['ok', 'unreachable', 'ok'],
  );
  assert.match(failing[1].status.message ?? '', /ECONNREFUSED/);
  assert.equal(failing[1].value, undefined);
  assert.equal(seen.length, 3);
  assert.deepEqual(
    seen.map((s) => s[1]),
    [1, 2, 3],
  );
  assert.ok(seen.every((s) => s[2] === 3));
});

test('a thrown plain error becomes an error status with its message', async () => {
  const fleet = new FakeFleet({ h1: new MemoryBackend(tree) });
  const out = await fanOut(
    fleet,
    fleet.hosts(),
    async () => {
      throw new Error('boom');
    },
    { concurrency: 1, deadlineMs: 1000 },
  );
  assert.equal(out[0].status.status, 'error');
  assert.equal(out[0].status.message, 'boom');
});

test('concurrency is bounded', async () => {
  const backends: Record<string, MemoryBackend> = {};
  for (let i = 0; i < 10; i++) backends[`h${i}`] = new MemoryBackend(tree);
  const fleet = new FakeFleet(backends);
  let inFlight = 0;
  let most = 0;
  await fanOut(
    fleet,
    fleet.hosts(),
    async () => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((r) => setImmediate(r));
      inFlight--;
    },
    { concurrency: 3, deadlineMs: 1000 },
  );
  assert.equal(most, 3);
});

test('a host past its deadline is a timeout row and its backend sees the abort', async () => {
  const hang = new HangingBackend();
  const fleet = new FakeFleet({ slow: hang, fast: new MemoryBackend(tree) });
  const out = await fanOut(fleet, fleet.hosts(), (b, _h, signal) => b.probe(signal), {
    concurrency: 2,
    deadlineMs: 50,
  });
  assert.deepEqual(
    out.map((r) => r.status.status),
    ['timeout', 'ok'],
  );
  assert.equal(hang.aborts, 1);
});

test("the caller's abort cancels every in-flight host", async () => {
  const a = new HangingBackend();
  const b = new HangingBackend();
  const fleet = new FakeFleet({ a, b });
  const ctrl = new AbortController();
  const pending = fanOut(fleet, fleet.hosts(), (be, _h, signal) => be.probe(signal), {
    concurrency: 4,
    deadlineMs: 60_000,
    signal: ctrl.signal,
  });
  await Promise.all([a.whenCalled(), b.whenCalled()]);
  ctrl.abort();
  const out = await pending;
  assert.equal(a.aborts, 1);
  assert.equal(b.aborts, 1);
  assert.ok(
    out.every((r: { status: HostStatus }) => r.status.status === 'error' && /cancel/.test(r.status.message ?? '')),
  );
});

test('cancelled with hosts still waiting for a slot: those are not asked, and nothing goes unhandled', async () => {
  const hanging = Array.from({ length: 6 }, () => new HangingBackend());
  const fleet = new FakeFleet(Object.fromEntries(hanging.map((b, i) => [`h${i}`, b])));
  const ctrl = new AbortController();
  const unhandled: unknown[] = [];
  const onUnhandled = (err: unknown) => unhandled.push(err);
  process.on('unhandledRejection', onUnhandled);
  try {
    const asked: string[] = [];
    const pending = fanOut(
      fleet,
      fleet.hosts(),
      (be, h, signal) => {
        asked.push(h.name);
        return be.probe(signal);
      },
      { concurrency: 2, deadlineMs: 60_000, signal: ctrl.signal },
    );
    await Promise.all([hanging[0].whenCalled(), hanging[1].whenCalled()]);
    ctrl.abort();
    const out = await pending;
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(asked, ['h0', 'h1']);
    assert.ok(out.every((r) => r.status.status === 'error' && /cancel/.test(r.status.message ?? '')));
    assert.deepEqual(unhandled, []);
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});

test('hostSignals: reasons are FleetErrors; dispose and close release', async () => {
  const parent = new AbortController();
  const signals = hostSignals(parent.signal);
  const a = signals.forHost(10_000);
  const b = signals.forHost(10_000);
  assert.equal(getEventListeners(parent.signal, 'abort').length, 1);
  b.dispose();
  parent.abort();
  assert.ok(a.signal.aborted);
  assert.ok(a.signal.reason instanceof FleetError);
  assert.equal((a.signal.reason as FleetError).code, 'cancelled');
  assert.equal(b.signal.aborted, false, 'a finished host is no longer linked');
  assert.equal((signals.forHost(10_000).signal.reason as FleetError).code, 'cancelled');
  a.dispose();
  signals.close();
  assert.equal(getEventListeners(parent.signal, 'abort').length, 0);
  const t = hostSignals(undefined).forHost(5);
  await new Promise((r) => setTimeout(r, 20));
  assert.equal((t.signal.reason as FleetError).code, 'deadline_exceeded');
});

test('hostSignals: hosts sharing one timer each time out at their own deadline, in or out of order', async () => {
  const signals = hostSignals(undefined);
  const a = signals.forHost(30);
  const b = signals.forHost(10); // earlier than the queue's last: a timer of its own
  const c = signals.forHost(60_000);
  const d = signals.forHost(40);
  c.dispose();
  await Promise.all([a, b, d].map((h) => once(h.signal, 'abort')));
  for (const h of [a, b, d]) assert.equal((h.signal.reason as FleetError).code, 'deadline_exceeded');
  assert.equal(c.signal.aborted, false, 'a finished host does not time out');
  assert.match((d.signal.reason as FleetError).message, /40 ms/);
  signals.close();
});

test('a fan-out over many hosts puts one listener on the call signal, and removes it', async () => {
  const call = new AbortController();
  const hosts = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`h${i}`, new MemoryBackend(tree)]));
  const fleet = new FakeFleet(hosts);
  const seen: number[] = [];
  await fanOut(
    fleet,
    fleet.hosts(),
    async (b, _h, signal) => {
      seen.push(getEventListeners(call.signal, 'abort').length);
      await new Promise((r) => setTimeout(r, 5));
      return b.probe(signal);
    },
    { concurrency: 40, deadlineMs: 5000, signal: call.signal },
  );
  assert.equal(seen.length, 40);
  assert.deepEqual([...new Set(seen)], [1]);
  assert.equal(getEventListeners(call.signal, 'abort').length, 0);
});

test('a failure tagged with the transport that failed keeps that via', async () => {
  const tagged = new DeadBackend();
  tagged.probe = async () => {
    throw Object.assign(new FleetError('unauthenticated', 'ssh: all auth methods failed'), { via: 'ssh' });
  };
  const fleet = new FakeFleet({ edge: tagged });
  const [r] = await fanOut(fleet, fleet.hosts(), (b, _h, signal) => b.probe(signal), {
    concurrency: 1,
    deadlineMs: 1000,
  });
  assert.deepEqual([r.status.status, r.status.via], ['auth', 'ssh']);
});

test("the call's deadline bounds the fan-out: queued hosts past it are not asked, and say why", async () => {
  const backends = { h1: new HangingBackend(), h2: new HangingBackend(), h3: new HangingBackend() };
  const fleet = new FakeFleet(backends);
  const budgets: number[] = [];
  const seen: string[] = [];
  // One slot, hosts that never answer, a per-host deadline far past the call's.
  const out = await fanOut(
    fleet,
    fleet.hosts(),
    (b, _h, signal, budgetMs) => {
      budgets.push(budgetMs);
      return b.probe(signal);
    },
    {
      concurrency: 1,
      deadlineMs: 600_000,
      deadlineAt: performance.now() + 300,
      onHostDone: (s) => seen.push(s.host),
    },
  );
  assert.deepEqual(
    out.map((r) => r.status.status),
    ['timeout', 'timeout', 'timeout'],
  );
  // The first host got what was left of the call, not its own 600 s; the others never ran.
  assert.equal(budgets.length, 1);
  assert.ok(budgets[0] <= 300, `${budgets[0]} ms`);
  assert.equal(backends.h1.aborts, 1);
  assert.equal(backends.h2.calls + backends.h3.calls, 0);
  assert.match(out[1].status.message ?? '', /^not asked: the call's deadline ran out while 2 of 3 hosts waited/);
  assert.deepEqual(seen, ['h1', 'h2', 'h3']);
});

test('a host that breaks mid-walk keeps the rows it sent: status error, saying partial', async () => {
  const fleet = new FakeFleet({ h1: new MemoryBackend(tree), h2: new MemoryBackend(tree) });
  const row = entryRow('a', { size: 1 });
  async function* breaks(): AsyncGenerator<Row[], WalkSummary, void> {
    yield [row];
    throw new FleetError('unavailable', 'Connection dropped');
  }
  const out = await fanOut(
    fleet,
    fleet.hosts(),
    (_b, host, signal) => walkHost(host.name === 'h2' ? breaks : (req, s) => _b.walk(req, s), WALK, signal),
    { concurrency: 2, deadlineMs: 5000 },
  );
  assert.equal(out[0].status.status, 'ok');
  assert.equal(out[1].status.status, 'error');
  assert.equal(out[1].status.message, 'partial answer: the walk broke after 1 rows, then Connection dropped');
  assert.deepEqual(out[1].value?.rows, [row]);
  assert.equal(out[1].value?.summary.entriesSent, 1);
});
