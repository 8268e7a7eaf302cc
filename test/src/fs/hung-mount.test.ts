// A real FUSE file system whose lookups never return (test/fixtures/fuse-fs.py hangs),
// mounted inside an allowed root. The walk that meets it answers: the mount becomes a
// TIMEOUT row and the rest of the tree is listed; the mount is then skipped without a
// system call; when every walk worker is stuck, walks are refused with a clear status
// while health and Stat elsewhere still answer. The fixture is unmounted (lazily) and
// killed at the end, which releases every thread still waiting on it.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { AgentClient, WireStatRequest } from '@fleetls/proto';
import * as grpc from '@grpc/grpc-js';
import { type AgentProcess, agentClient, healthCheck, startAgent, walkAll } from '../helpers/agent-process.js';
import { type FuseMount, mountFuse } from '../helpers/fuse.js';
import { rowLines } from '../helpers/walks.js';

const FS_TIMEOUT_MS = 1000;
/** A walk that hangs fails the test well before the runner's own timeout (so after() still runs). */
const CALL_MS = 20_000;

function stat(client: AgentClient, req: WireStatRequest): Promise<grpc.ServiceError | undefined> {
  return new Promise((resolve) =>
    client.Stat(req, new grpc.Metadata(), { deadline: Date.now() + CALL_MS }, (err) => resolve(err ?? undefined)),
  );
}

function walkError(client: AgentClient, path: string): Promise<grpc.ServiceError> {
  return walkAll(client, { path, maxDepth: 3 }, undefined, CALL_MS).then(
    () => assert.fail(`walk of ${path} should have been refused`),
    (err: grpc.ServiceError) => err,
  );
}

describe('a FUSE mount whose lookups never return, inside an allowed root', () => {
  const work = mkdtempSync(join(tmpdir(), 'fleetls-hung-'));
  const root = join(work, 'root');
  let fuse: FuseMount;
  const agents: AgentProcess[] = [];
  const clients: AgentClient[] = [];

  const start = async (maxWalks: number): Promise<{ agent: AgentProcess; client: AgentClient }> => {
    const agent = await startAgent({
      allow: [root],
      args: ['--fs-timeout-ms', String(FS_TIMEOUT_MS), '--max-concurrent-walks', String(maxWalks)],
    });
    agents.push(agent);
    // An agent with a thread on the hung mount must not outlive a failed run.
    process.once('exit', () => agent.child.kill('SIGKILL'));
    const client = agentClient(agent.address);
    clients.push(client);
    return { agent, client };
  };

  before(async () => {
    mkdirSync(join(root, 'a-before'), { recursive: true });
    writeFileSync(join(root, 'a-before', 'file'), 'a');
    mkdirSync(join(root, 'fuse'));
    mkdirSync(join(root, 'zz-after'));
    writeFileSync(join(root, 'zz-after', 'x'), 'x');
    writeFileSync(join(root, 'zz-after', 'y'), 'y');
    fuse = await mountFuse('hangs', join(root, 'fuse'));
  });
  after(async () => {
    for (const c of clients) c.close();
    // First the mount: a thread blocked on it returns only when it goes.
    await fuse?.unmount();
    for (const a of agents) await a.stop('SIGKILL');
    rmSync(work, { recursive: true, force: true });
  });

  it('lists the rest of the tree with the hung mount as a TIMEOUT row, then skips the mount', async () => {
    const { agent, client } = await start(2);
    const first = await walkAll(client, { path: root, maxDepth: 3 }, undefined, CALL_MS);
    const got = rowLines(first.rows);
    // Rows sent before the worker got stuck may include the mount's first entries; the
    // mount's TIMEOUT row and everything after it are there, and no row twice.
    assert.ok(got.includes('fuse [TIMEOUT]'), got.join('\n'));
    for (const want of ['a-before dir', 'a-before/file file', 'zz-after dir', 'zz-after/x file', 'zz-after/y file'])
      assert.ok(got.includes(want), `${want} in\n${got.join('\n')}`);
    assert.equal(new Set(got).size, got.length, `no duplicate rows:\n${got.join('\n')}`);
    assert.ok(got.indexOf('fuse [TIMEOUT]') < got.indexOf('zz-after dir'));
    const timeoutRow = first.rows.find((r) => r.kind === 'entry' && r.entry.error?.code === 'TIMEOUT');
    assert.match(
      timeoutRow?.kind === 'entry' ? (timeoutRow.entry.error?.detail ?? '') : '',
      new RegExp(`fuse mount ${join(root, 'fuse')} did not answer within ${FS_TIMEOUT_MS} ms.*skipped until`),
    );
    const hung = await agent.waitForLog((l) => l.msg === 'mount hung');
    assert.equal(hung.mount, join(root, 'fuse'));

    // Remembered: the next walk lists the mount as TIMEOUT at once, and no worker gets stuck again.
    const second = await walkAll(client, { path: root, maxDepth: 3 }, undefined, CALL_MS);
    assert.deepEqual(rowLines(second.rows), [
      'a-before dir',
      'a-before/file file',
      'fuse [TIMEOUT]',
      'zz-after dir',
      'zz-after/x file',
      'zz-after/y file',
    ]);
    assert.equal(agent.logs().filter((l) => l.msg === 'mount hung').length, 1);
    // A path on the hung mount is refused before any call touches it; paths elsewhere answer.
    const onMount = await walkError(client, join(root, 'fuse', 'stuck'));
    assert.equal(onMount.code, grpc.status.DEADLINE_EXCEEDED);
    assert.match(onMount.details, /did not answer/);
    assert.equal((await stat(client, { path: join(root, 'fuse', 'ok.txt') }))?.code, grpc.status.DEADLINE_EXCEEDED);
    assert.equal(await stat(client, { path: join(root, 'zz-after', 'x') }), undefined);
    assert.equal(await healthCheck(agent.address), 'SERVING');
  });

  it('refuses walks with a clear status while every worker is stuck; health and Stat elsewhere answer', async () => {
    const { agent, client } = await start(1);
    // The one worker gets stuck on the mount; the walk still answers from a fresh worker.
    const first = await walkAll(client, { path: root, maxDepth: 3 }, undefined, CALL_MS);
    assert.ok(rowLines(first.rows).includes('fuse [TIMEOUT]'));
    const refused = await walkError(client, join(root, 'zz-after'));
    assert.equal(refused.code, grpc.status.RESOURCE_EXHAUSTED);
    assert.match(refused.details, /every walk worker \(1 of max_concurrent_walks 1\) is stuck/);
    assert.match(refused.details, new RegExp(`hung: ${join(root, 'fuse')}`));
    assert.equal(await stat(client, { path: join(root, 'zz-after', 'x') }), undefined);
    assert.equal(await healthCheck(agent.address), 'SERVING');
    assert.equal(agent.child.exitCode, null);
  });
});
