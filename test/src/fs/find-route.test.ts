// The agent's find route (GNU find + awk for ranked walks by size or mtime) gives exactly
// the JS walker's rows and summary. Two real agents, run as an unprivileged user so
// unreadable directories are unreadable: one with find, one whose PATH has no find (its
// probe fails, so it walks in JS: the fallback of a host without GNU find). The tree is
// the bench's small tree (bench/src/trees.ts: names that are not UTF-8, symlinks, sparse
// multi-GB files, hidden directories) plus hard links, an unreadable directory, a
// directory that can be read but not searched, a FIFO and many ties on size and mtime.
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import type { AgentClient, WireWalkRequest } from '@fleetls/proto';
import { makeTree, range } from '@fleetls/testkit';
import {
  type AgentProcess,
  agentClient,
  REPO_ROOT,
  startAgent,
  type WalkResult,
  walkAll,
} from '../helpers/agent-process.js';
import { ensureUser } from '../helpers/sshd.js';

const CALL_MS = 60_000;
const USER = 'fleetls-find';

interface BenchTrees {
  TREE_SPECS: { small: unknown };
  ensureTree(spec: unknown): { root: string };
}

describe('the agent find route', () => {
  const work = mkdtempSync(join(tmpdir(), 'fleetls-find-route-'));
  let root: string;
  let find: AgentProcess;
  let js: AgentProcess;
  /**
   * An agent with find and FIND_AFTER_ENTRIES at its default (5000), set: small trees in JS,
   * big ones in find. (Unset, an agent with its native module keeps every walk in JS: `native`.)
   */
  let auto: AgentProcess;
  let native: AgentProcess;
  let findClient: AgentClient;
  let jsClient: AgentClient;
  let autoClient: AgentClient;
  let nativeClient: AgentClient;

  before(async () => {
    chmodSync(work, 0o755);
    const { uid, gid } = ensureUser(USER);
    // The bench's own generator, built into a directory of this test's.
    process.env.FLEETLS_BENCH_DIR = work;
    const trees = (await import(pathToFileURL(join(REPO_ROOT, 'bench/dist/trees.js')).href)) as BenchTrees;
    root = trees.ensureTree(trees.TREE_SPECS.small).root;
    delete process.env.FLEETLS_BENCH_DIR;
    makeTree(
      join(root, 'extra'),
      [
        ['locked/inner', { dir: true }],
        ['locked/secret', 'secret'],
        ['noexec/hidden-meta', 'x'],
        ...range(
          300,
          (i) => `ties/t${i % 7 === 0 ? `.${i}` : i}`,
          (i) => ({ data: 'y'.repeat(i % 4), mtime: 1_700_000_000 + (i % 3) }),
        ),
        // One directory too large to read in one call (over 64 KiB of names): listed by one find.
        ...range(
          4000,
          (i) => `flat/flat-file-${i}`,
          (i) => 'f'.repeat(i % 13),
        ),
        ['hard', 'z'.repeat(5000)],
        ['hard-2', { hardLink: 'hard' }],
        ['ties/hard-3', { hardLink: 'hard' }],
        ['fifo', { fifo: true }],
        ['locked', { dir: true, mode: 0o000 }],
        ['noexec', { dir: true, mode: 0o644 }],
      ],
      { uid, gid },
    );
    // FLEETLS_FIND_AFTER_ENTRIES=0: these trees are small, and each walk must be find's.
    find = await startAgent({ allow: [work], uid, gid, env: { FLEETLS_FIND_AFTER_ENTRIES: '0' } });
    js = await startAgent({ allow: [work], uid, gid, env: { PATH: '/nonexistent' } });
    auto = await startAgent({ allow: [work], uid, gid, env: { FLEETLS_FIND_AFTER_ENTRIES: '5000' } });
    native = await startAgent({ allow: [work], uid, gid });
    findClient = agentClient(find.address);
    jsClient = agentClient(js.address);
    autoClient = agentClient(auto.address);
    nativeClient = agentClient(native.address);
  });
  after(async () => {
    findClient?.close();
    jsClient?.close();
    autoClient?.close();
    nativeClient?.close();
    await find?.stop();
    await js?.stop();
    await auto?.stop();
    await native?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  const cases: Partial<WireWalkRequest>[] = [];
  for (const order of ['ORDER_SIZE', 'ORDER_MODIFIED'] as const)
    for (const direction of ['DIRECTION_DESCENDING', 'DIRECTION_ASCENDING'] as const)
      for (const [topN, offset] of [
        [100, 0],
        [7, 30],
      ])
        cases.push({ order, direction, topN, offset });
  cases.push(
    { order: 'ORDER_SIZE', topN: 50, types: ['ENTRY_TYPE_FILE'] },
    { order: 'ORDER_SIZE', topN: 50, types: ['ENTRY_TYPE_DIR', 'ENTRY_TYPE_SYMLINK'] },
    { order: 'ORDER_MODIFIED', topN: 20, excludeHidden: true },
    { order: 'ORDER_SIZE', direction: 'DIRECTION_ASCENDING', topN: 20, maxDepth: 2 },
    { order: 'ORDER_SIZE', topN: 30, dirSizes: true },
    { order: 'ORDER_SIZE', topN: 30, filter: { minSize: { bytes: 1000 }, name: '*.md' } },
    {
      order: 'ORDER_MODIFIED',
      topN: 30,
      filter: { modifiedAfter: { sec: 1_650_000_000, nsec: 0 }, perm: { kind: 'PERM_KIND_ALL', mode: 0o400 } },
    },
  );

  /** Walks `req` through `client` and the JS walker at once: the same rows and summary (elapsed aside). */
  async function sameAsJs(client: AgentClient, req: WireWalkRequest): Promise<WalkResult> {
    const [via, viaJs] = await Promise.all([
      walkAll(client, req, undefined, CALL_MS),
      walkAll(jsClient, req, undefined, CALL_MS),
    ]);
    assert.deepEqual(via.rows, viaJs.rows);
    assert.deepEqual({ ...via.summary, elapsedMs: 0 }, { ...viaJs.summary, elapsedMs: 0 });
    return viaJs;
  }

  for (const c of cases) {
    it(`gives the JS walker's rows and summary: ${JSON.stringify(c)}`, async () => {
      const req: WireWalkRequest = { path: root, maxDepth: 64, shape: 'SHAPE_RANKED', ...c };
      assert.ok((await sameAsJs(findClient, req)).rows.length > 0);
    });
  }

  it("gives the JS walker's answer over one flat directory too (listed by one find, not two)", async () => {
    for (const order of ['ORDER_SIZE', 'ORDER_MODIFIED'] as const) {
      await sameAsJs(findClient, { path: join(root, 'extra', 'flat'), shape: 'SHAPE_RANKED', order, topN: 10 });
    }
  });

  it("walks a small tree in JS and a big one in find from its start, with the JS walker's answer", async () => {
    // extra/ties holds 300 entries; the whole tree ~14,000, past FIND_AFTER_ENTRIES (5,000):
    // its walk starts in JS, stops there, and starts again in find (nothing counted twice).
    for (const path of [join(root, 'extra', 'ties'), root]) {
      const req: WireWalkRequest = { path, maxDepth: 64, shape: 'SHAPE_RANKED', order: 'ORDER_SIZE', topN: 25 };
      assert.ok((await sameAsJs(autoClient, req)).rows.length > 0);
      // The 'walk end' line follows the summary once the walk's processes are gone: wait for it.
      await auto.waitForLog((l) => l.msg === 'walk end' && l.path === path);
    }
    const routes = auto
      .logs()
      .filter((l) => l.msg === 'walk end')
      .map((l) => [l.route, l.entriesSeen]);
    assert.deepEqual(
      routes.map(([route]) => route),
      ['js', 'find'],
      JSON.stringify(routes),
    );
  });

  it('keeps a big ranked walk in JS where the native module reads, with find’s answer', async () => {
    // FLEETLS_FIND_AFTER_ENTRIES unset: the native module's walker costs about find's CPU.
    const req: WireWalkRequest = { path: root, maxDepth: 64, shape: 'SHAPE_RANKED', order: 'ORDER_SIZE', topN: 25 };
    // `auto` lists this big tree with find (its own walks were counted in the test above).
    const [viaNative, viaFind] = await Promise.all([
      walkAll(nativeClient, req, undefined, CALL_MS),
      walkAll(autoClient, req, undefined, CALL_MS),
    ]);
    assert.deepEqual(viaNative.rows, viaFind.rows);
    assert.deepEqual({ ...viaNative.summary, elapsedMs: 0 }, { ...viaFind.summary, elapsedMs: 0 });
    await native.waitForLog((l) => l.msg === 'walk end' && l.path === root);
    const ends = native.logs().filter((l) => l.msg === 'walk end');
    assert.deepEqual(
      ends.map((l) => l.route),
      ['js'],
    );
  });

  it('listed every ranked walk with find on one agent and in JS on the other', () => {
    const routes = (a: AgentProcess) =>
      a
        .logs()
        .filter((l) => l.msg === 'walk end')
        .map((l) => l.route);
    const fallbacks = find.logs().flatMap((l) => (l.fallback ? [l.fallback] : []));
    assert.deepEqual(new Set(routes(find)), new Set(['find']), JSON.stringify(fallbacks));
    assert.deepEqual(new Set(routes(js)), new Set(['js']));
    assert.equal(routes(find).length, cases.length + 2);
  });
});
