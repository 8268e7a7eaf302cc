// Walk helpers for tests: draining a backend's walk, and the agent's answer without the
// agent process (the reference the SSH backends are compared with).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { type HostBackend, type Row, WALK_DEFAULTS, type WalkRequest, type WalkSummary } from '@fleetls/core';
import type { TreeNode } from '@fleetls/testkit';
import type { Sshd } from './sshd.js';

/** Every row of a backend's walk, and its summary. */
export async function drain(
  gen: AsyncGenerator<Row[], WalkSummary, void>,
): Promise<{ rows: Row[]; summary: WalkSummary }> {
  const rows: Row[] = [];
  for (;;) {
    const step = await gen.next();
    if (step.done) return { rows, summary: step.value };
    rows.push(...step.value);
  }
}

/** The paths of the rows that are entries, sorted. */
export function entryPaths(rows: Row[]): string[] {
  return rows.flatMap((r) => (r.kind === 'entry' ? [r.entry.path.toString()] : [])).sort();
}

/** Each row as one line: `path type` (`path [CODE]` for an entry that failed), or `truncated dir`. */
export function rowLines(rows: Row[]): string[] {
  return rows.flatMap((r) =>
    r.kind === 'entry'
      ? [`${r.entry.path.toString()} ${r.entry.error ? `[${r.entry.error.code}]` : r.entry.type}`]
      : [`truncated ${r.truncation.dir.toString()}`],
  );
}

/**
 * core walk() over the agent's fs source, in a child process running as the sshd login
 * user, so unreadable directories are unreadable here too.
 */
export function agentWalksAsUser(sshd: Sshd, requests: WalkRequest[]): unknown[] {
  return walksAsUser(sshd, requests).walks;
}

/**
 * core walk() over the agent's fs source in a child process as `user`, with `env` (e.g.
 * FLEETLS_NATIVE=0): each walk's rows and summary, and how the child stat'ed entries.
 */
export function walksAsUser(
  user: { uid: number; gid: number },
  requests: WalkRequest[],
  env: NodeJS.ProcessEnv = {},
): { route: string; walks: unknown[] } {
  const script = `
    import { realpathSync } from 'node:fs';
    import { walk } from '@fleetls/core';
    import { createFsSource, statRoute } from '@fleetls/agent';
    const reqs = JSON.parse(process.argv[1]);
    const walks = reqs.map((r) => {
      // As the agent service does: a symlinked path is walked at its real path.
      try { r = { ...r, path: realpathSync(r.path) }; } catch {}
      const gen = walk(r, createFsSource(r.path, { followSymlinks: r.followSymlinks, allowedRoots: ['/'] }), Date.now);
      const rows = [];
      let s = gen.next();
      while (!s.done) { rows.push(s.value); s = gen.next(); }
      return { rows, summary: { ...s.value, elapsedMs: 0 } };
    });
    process.stdout.write(JSON.stringify({ route: statRoute(), walks }));
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(requests)], {
    uid: user.uid,
    gid: user.gid,
    env: { ...process.env, ...env },
    // The test package's directory, where @fleetls/* resolve.
    cwd: new URL('../..', import.meta.url).pathname,
    maxBuffer: 1 << 28,
    encoding: 'utf8',
  });
  return JSON.parse(out);
}

/** A walk request of `path` with the defaults, depth 3, then `over`. */
export function walkReq(path: string, over: Partial<WalkRequest> = {}): WalkRequest {
  return { ...WALK_DEFAULTS, path, maxDepth: 3, ...over };
}

/**
 * The walks a remote route (find over SSH, SFTP) is held to against the agent's, on one tree:
 * caps, each order, ranked pages, directory sizes, filters. `modifiedCap` and `oneFileSystem`
 * are what the routes' own trees need (the SFTP tree is smaller, its sizing stays on one device).
 */
export function parityRequests(root: string, o: { modifiedCap: number; oneFileSystem?: boolean }): WalkRequest[] {
  return [
    walkReq(root, { maxDepth: 3, maxItemsPerDir: 50 }),
    walkReq(root, { maxDepth: 4, order: 'size', direction: 'descending', capRoot: true, maxItemsPerDir: 7 }),
    walkReq(root, { maxDepth: 3, order: 'modified', maxEntries: o.modifiedCap }),
    walkReq(root, { shape: 'ranked', order: 'name', topN: 40, offset: 20, maxDepth: 5 }),
    walkReq(root, { shape: 'ranked', order: 'size', direction: 'descending', topN: 10, maxDepth: 5, types: ['file'] }),
    walkReq(root, { shape: 'ranked', order: 'size', types: ['dir'], dirSizes: true, topN: 50, maxDepth: 3 }),
    walkReq(root, { maxDepth: 2, dirSizes: true, order: 'size', ...(o.oneFileSystem ? { oneFileSystem: true } : {}) }),
    walkReq(root, { maxDepth: 3, excludeHidden: true, exclude: ['big'], include: ['**/*e*'] }),
  ];
}

/**
 * The edges every remote route's tree ends with (makeTree specs, relative to its root): a
 * symlink to `a`, a loop, a dangling one, a 5 GiB sparse file, and a directory its walker
 * cannot read (root's, mode 000). Each tree has a directory `a`.
 */
export const REMOTE_EDGES: [string, TreeNode][] = [
  ['link-dir', { link: 'a' }],
  ['loop', { link: '.' }],
  ['broken', { link: 'nowhere' }],
  ['sparse', { size: 5 * 1024 ** 3 }],
  ['locked/secret', 's'],
  ['locked', { dir: true, uid: 0, gid: 0, mode: 0o000 }],
];

/** Stat on REMOTE_EDGES: the link not followed and followed, a missing path, one below the unreadable directory. */
export async function assertEdgeStats(backend: HostBackend, root: string, signal: AbortSignal): Promise<void> {
  const link = await backend.stat(join(root, 'link-dir'), false, signal);
  assert.equal(link.entry.type, 'symlink');
  assert.deepEqual(link.entry.linkTarget, Buffer.from('a'));
  assert.equal((await backend.stat(join(root, 'link-dir'), true, signal)).entry.type, 'dir');
  await assert.rejects(backend.stat(join(root, 'missing'), false, signal), { code: 'not_found' });
  await assert.rejects(backend.stat(join(root, 'locked', 'secret'), false, signal), { code: 'permission_denied' });
}
