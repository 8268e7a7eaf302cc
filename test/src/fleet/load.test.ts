// Load on a real agent: 64 concurrent Walks with --max-concurrent-walks 8 (walks of a slow
// FUSE tree, so they overlap): exactly what fits is admitted and answers correctly (whole, or
// cut by its deadline on a loaded machine with the truncation that says so: never a silent
// loss); the excess is refused with RESOURCE_EXHAUSTED before a single row, never queued. Nothing
// crashes; the agent's peak resident memory stays under a stated bound. Time figures
// belong to bench/, not here.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { agentWalk, silentLoss } from '@fleetls/gateway/testing';
import { makeTree, range } from '@fleetls/testkit';
import * as grpc from '@grpc/grpc-js';
import { agentClient, healthCheck, LOADED_HOST_ARGS, startAgent } from '../helpers/agent-process.js';
import { type FuseMount, mountFuse } from '../helpers/fuse.js';

/** Peak resident memory allowed for the agent (VmHWM). */
const PEAK_MB = 400;
/** Entries of a whole walk of the slow tree at depth 2: 15 directories of 20 files. */
const SLOW_ROWS = 15 + 15 * 20;

function peakMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1]) / 1024;
}

describe('load', () => {
  const work = mkdtempSync(join(tmpdir(), 'fleetls-load-'));
  let fuse: FuseMount;

  before(async () => {
    mkdirSync(join(work, 'slow'));
    fuse = await mountFuse('slow', join(work, 'slow'));
    makeTree(
      join(work, 'small'),
      range(
        10,
        (i) => `f${i}`,
        (i) => ({ size: (i + 1) * 100 }),
      ),
    );
  });
  after(async () => {
    await fuse?.unmount();
    rmSync(work, { recursive: true, force: true });
  });

  it('64 concurrent Walks, max 8: 8 admitted, lose nothing silently; 56 are refused before any row', async () => {
    const agent = await startAgent({ allow: [work], args: ['--max-concurrent-walks', '8', ...LOADED_HOST_ARGS] });
    const client = agentClient(agent.address);
    try {
      const results = await Promise.all(
        Array.from({ length: 64 }, () => agentWalk(client, { path: join(work, 'slow'), maxDepth: 2 })),
      );
      const ok = results.filter((r) => r.code === grpc.status.OK);
      const refused = results.filter((r) => r.code === grpc.status.RESOURCE_EXHAUSTED);
      assert.equal(ok.length + refused.length, 64, JSON.stringify(results.filter((r) => !ok.includes(r))));
      // The first eight fill the slots for seconds; every other one is turned away, not queued.
      assert.equal(ok.length, 8);
      // Whole, or (a loaded machine: the walk's deadline) cut with the truncation that says so.
      for (const r of ok) assert.equal(silentLoss(r, SLOW_ROWS), undefined, JSON.stringify(r.summary));
      for (const r of refused) assert.equal(r.entries, 0);
      assert.equal(await healthCheck(agent.address), 'SERVING');
      // The slots are free again.
      assert.equal((await agentWalk(client, { path: join(work, 'small'), maxDepth: 1 })).entries, 10);
      assert.ok(peakMb(agent.pid) < PEAK_MB, `agent peak ${peakMb(agent.pid)} MB`);
    } finally {
      client.close();
      await agent.stop();
    }
  });
});
