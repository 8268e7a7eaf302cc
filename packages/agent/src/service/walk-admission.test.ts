import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FleetError, resolveWalkRequest } from '@fleetls/core';
import { loadContract } from '@fleetls/proto';
import * as grpc from '@grpc/grpc-js';
import pino from 'pino';
import { createLocalBackend } from '../carriers/local-backend.js';
import { parseAgentConfig } from '../config/config.js';
import { WalkPool } from '../walk/pool.js';
import { createAgentHandlers } from './service.js';
import { BIG_RANKED_HOLD, createWalkAdmission, MAX_BIG_RANKED_WALKS } from './walk-admission.js';
import type { CallStatus, WalkCall } from './walk-call.js';

// The directory every walk below lists: 300 empty files, read and never changed by the tests.
let root: string;
before(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-admission-')));
  for (let i = 0; i < 300; i++) fs.writeFileSync(path.join(root, `f${i}`), '');
});
after(() => fs.rmSync(root, { recursive: true, force: true }));

describe('createWalkAdmission', () => {
  it('admits at most MAX_BIG_RANKED_WALKS ranked walks holding more than BIG_RANKED_HOLD entries (issue 35, F6)', () => {
    const a = createWalkAdmission(8, new WalkPool());
    const big = { shape: 'ranked', topN: 1000, offset: BIG_RANKED_HOLD } as const;
    const leaves = Array.from({ length: MAX_BIG_RANKED_WALKS }, () => a.enter(big));
    assert.throws(
      () => a.enter(big),
      (err: unknown) =>
        err instanceof FleetError &&
        err.code === 'resource_exhausted' &&
        err.message ===
          'too many big ranked walks: 2 running that hold more than 10000 entries (offset + top_n), at most 2 at once; ask for fewer or try again',
    );
    // Small ranked walks and tree walks still run beside them, up to max_concurrent_walks.
    a.enter({ shape: 'ranked', topN: BIG_RANKED_HOLD, offset: 0 });
    a.enter({ shape: 'tree', topN: 1000, offset: 99_000 });
    assert.equal(a.active(), MAX_BIG_RANKED_WALKS + 2);
    leaves[0]();
    a.enter(big);
  });

  it('admits max walks, refuses the next with resource_exhausted naming the limit, and takes a slot back once', () => {
    const a = createWalkAdmission(2, new WalkPool());
    const first = a.enter();
    a.enter();
    assert.equal(a.active(), 2);
    assert.throws(
      () => a.enter(),
      (err: unknown) =>
        err instanceof FleetError &&
        err.code === 'resource_exhausted' &&
        err.message === 'too many concurrent walks: 2 running, max_concurrent_walks is 2',
    );
    assert.equal(a.active(), 2, 'a refused walk takes no slot');
    first();
    first();
    assert.equal(a.active(), 1, 'giving a slot back twice gives back one');
    a.enter();
    assert.equal(a.active(), 2);
  });
});

describe('the embedded backend admits walks as the agent does', () => {
  it('runs max_concurrent_walks at once, refuses the next one before its path is resolved, admits again once one ends', async () => {
    const b = createLocalBackend({ allowedRoots: [root], maxConcurrentWalks: 2 });
    const signal = new AbortController().signal;
    const req = resolveWalkRequest({ path: root, maxDepth: 1 });
    // Two walks that have started and are held by their consumer.
    const held = [b.walk(req, signal), b.walk(req, signal)];
    for (const g of held) assert.equal((await g.next()).done, false);
    const refused = (p: string) =>
      assert.rejects(
        b.walk(resolveWalkRequest({ path: p, maxDepth: 1 }), signal).next(),
        (err: unknown) =>
          FleetError.from(err).code === 'resource_exhausted' &&
          /^too many concurrent walks: 2 running, max_concurrent_walks is 2$/.test((err as Error).message),
      );
    await refused(root);
    // Even a path outside the roots: the refusal comes first, as the agent's does.
    await refused('/etc');
    await held[0].return(undefined as never);
    const again = b.walk(req, signal);
    assert.equal((await again.next()).done, false, 'a slot given back is taken again');
    await again.return(undefined as never);
    await held[1].return(undefined as never);
  });
});

const walkMethod = loadContract().proto.fleetls.v1.Agent.service.Walk;

/** A Walk call as a carrier hands it to the agent's handler (decoded as grpc-js does): its status is what the test reads. */
function fakeCall(path: string): WalkCall & { status?: CallStatus } {
  const call = {
    request: walkMethod.requestDeserialize(walkMethod.requestSerialize({ path, maxDepth: 1 })) as WalkCall['request'],
    caller: 'test',
    peer: 'test',
    cancelled: false,
    status: undefined as CallStatus | undefined,
    deadline: () => undefined,
    onCancel: () => () => {},
    sendHeaders: () => {},
    write: () => true,
    drained: () => Promise.resolve(true),
    end: () => {},
    fail(s: CallStatus) {
      call.status = s;
    },
  };
  return call;
}

describe('a burst of walks that arrive at once', () => {
  // Load bench: 200 calls reached one agent in a few socket reads; every one passed a check made
  // before its path was resolved, all 200 resolved their paths, and only then were 192 refused.
  it("the agent's handler refuses every call past max_concurrent_walks before resolving its path", async () => {
    const config = parseAgentConfig(
      ['--config', '/dev/null', '--insecure-loopback', '--allow', root, '--max-concurrent-walks', '2'],
      {},
    );
    const handlers = createAgentHandlers({ config, logger: pino({ level: 'silent' }), version: '0.0.0' });
    // Started in one tick, as a carrier's handlers run for streams read in one socket read.
    const calls = [fakeCall(root), fakeCall(root), fakeCall(path.join(root, 'missing'))];
    await Promise.all(calls.map((c) => handlers.walk(c)));
    assert.equal(calls[0].status, undefined);
    assert.equal(calls[1].status, undefined);
    // Not NOT_FOUND: the third never looked its path up.
    assert.equal(calls[2].status?.code, grpc.status.RESOURCE_EXHAUSTED, calls[2].status?.details);
    assert.match(calls[2].status?.details ?? '', /^too many concurrent walks: 2 running/);
    assert.equal(handlers.active(), 0, 'every slot given back');
  });

  it('the embedded backend does the same', async () => {
    const b = createLocalBackend({ allowedRoots: [root], maxConcurrentWalks: 2 });
    const signal = new AbortController().signal;
    const walks = [root, root, '/etc'].map((p) => b.walk(resolveWalkRequest({ path: p, maxDepth: 1 }), signal));
    const firsts = walks.map((g) => g.next());
    // Not 'permission': '/etc' is outside the roots, and it was never looked at.
    const third = assert.rejects(firsts[2], (err: unknown) => FleetError.from(err).code === 'resource_exhausted');
    assert.equal((await firsts[0]).done, false);
    assert.equal((await firsts[1]).done, false);
    await third;
    for (const g of walks.slice(0, 2)) await g.return(undefined as never);
  });
});
