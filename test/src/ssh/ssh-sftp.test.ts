// The SSH backend's SFTP fallback against a real sshd whose login PATH has no GNU find
// (a `find` that says BusyBox): the same rows as core walk over the agent's fs source
// (mtimes at whole seconds, no inode), and every answer says it was listed over SFTP.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { WalkRequest } from '@fleetls/core';
import {
  createSshBackend,
  loadFleet,
  resolveGatewayOptions,
  SFTP_NOTE,
  SFTP_STAT_NOTE,
  type SshBackend,
  type ToolContext,
} from '@fleetls/gateway';
import { listDirectories, listDirectory, listFiles, statPaths, treeEntryPaths } from '@fleetls/gateway/testing';
import { makeTree, range, type TreeSpec } from '@fleetls/testkit';
import pino from 'pino';
import { type Sshd, shimPath, sshInventory, sshTarget, startSshd } from '../helpers/sshd.js';
import { agentWalksAsUser, assertEdgeStats, drain, parityRequests, REMOTE_EDGES, walkReq } from '../helpers/walks.js';

const logger = pino({ level: 'silent' });
const signal = new AbortController().signal;

const req = walkReq;

/** Nesting, a big dir, symlinks (to a dir, a loop, broken), an unreadable dir, a sparse file, odd mtimes. */
const SFTP_TREE: TreeSpec = [
  ['a/b/c/d/deep', 'deep'],
  // Two sub-second mtimes among the whole-second ones below.
  ['a/one', { data: '1', mtime: 1_700_000_000.75 }],
  ['a/b/two', '22'],
  ...range(
    300,
    (i) => `big/f${String(i).padStart(3, '0')}`,
    (i) => 'x'.repeat(i),
  ),
  ['sp ace', { data: 'space', mtime: 1_600_000_000.25 }],
  ['.hidden', 'h'],
  ...REMOTE_EDGES,
];

/**
 * Whole-second mtimes with ties (entries made within one second would be told apart by
 * their nanoseconds on the agent, by name over SFTP).
 */
function tiedSeconds(): () => number {
  let i = 0;
  return () => 1_750_000_000 + (i++ % 7) * 3600;
}

type JsonBuffer = { type: 'Buffer'; data: number[] };
const text = (b: JsonBuffer) => Buffer.from(b.data).toString('latin1');

/** Rows as JSON with paths as text and what SFTP cannot know taken out: nanoseconds and inode numbers. */
function comparable(rows: unknown[]): unknown[] {
  return rows.map((r) => {
    const row = r as { kind: string; entry?: Record<string, unknown>; truncation?: Record<string, unknown> };
    if (row.kind !== 'entry' || !row.entry)
      return { ...row, truncation: { ...row.truncation, dir: text(row.truncation?.dir as JsonBuffer) } };
    // SFTP's attributes have no block count: a directory's allocated size is not known there (known gap).
    const { inode: _inode, mtimeNsec: _nsec, allocated: _allocated, path, linkTarget, ...rest } = row.entry;
    const entry: Record<string, unknown> = { path: text(path as JsonBuffer), ...rest };
    // The start path's link count comes from stat, which over SFTP has none (known gap).
    if (entry.path === '') delete entry.nlink;
    if (linkTarget) entry.linkTarget = text(linkTarget as JsonBuffer);
    return { kind: 'entry', entry };
  });
}

describe('SSH backend over SFTP (no GNU find on the host)', () => {
  let sshd: Sshd;
  let shim: string;
  let backend: SshBackend;
  let root: string;
  let inventory: string;

  before(async () => {
    shim = shimPath();
    sshd = await startSshd({ extraConfig: [`SetEnv PATH=${shim}`] });
    root = join(sshd.dir, 'tree');
    makeTree(root, SFTP_TREE, { uid: sshd.uid, gid: sshd.gid, mtime: tiedSeconds() });
    // A name that is not UTF-8, beside the compared tree.
    makeTree(
      join(sshd.dir, 'odd'),
      [
        [Buffer.from([0x66, 0xff, 0xfe]), 'bytes'],
        ['fine', 'ok'],
      ],
      { uid: sshd.uid, gid: sshd.gid },
    );
    backend = createSshBackend(sshTarget(sshd), { logger });
    inventory = join(sshd.dir, 'sftp-fleet.yaml');
    writeFileSync(inventory, ['hosts:', `  busybox: { ssh: ${sshInventory(sshd)} }`, ''].join('\n'));
  });
  after(async () => {
    backend?.close();
    await sshd?.stop();
    if (shim) rmSync(shim, { recursive: true, force: true });
  });

  it('the probe finds no GNU find, so the host is listed over SFTP', async () => {
    assert.deepEqual(await backend.probe(signal), { version: 'ssh (sftp)' });
    const { summary } = await drain(backend.walk(req(root, { maxDepth: 1 }), signal));
    assert.deepEqual(summary.notes, [SFTP_NOTE]);
    assert.match(SFTP_NOTE, /whole seconds/);
  });

  it('gives the same rows as core walk over the agent fs source, as the same user, at whole seconds', async () => {
    const requests: WalkRequest[] = [
      ...parityRequests(root, { modifiedCap: 120, oneFileSystem: true }),
      // Following symlinks: link-dir is walked, loop is reported once, not every directory.
      req(root, { maxDepth: 3, followSymlinks: true, exclude: ['big'] }),
      req(join(root, 'link-dir'), { maxDepth: 2 }),
      req(join(root, 'missing'), { maxDepth: 1 }),
      req(join(root, 'locked'), { maxDepth: 1 }),
      req(join(root, 'sp ace'), { maxDepth: 1 }),
    ];
    const agentSide = agentWalksAsUser(sshd, requests) as { rows: unknown[]; summary: unknown }[];
    for (const [i, r] of requests.entries()) {
      const ssh = await drain(backend.walk(r, signal));
      assert.deepEqual(ssh.summary.notes, [SFTP_NOTE], `request ${i}`);
      const { notes: _notes, ...summary } = ssh.summary;
      const mine = JSON.parse(JSON.stringify({ rows: ssh.rows, summary: { ...summary, elapsedMs: 0 } }));
      assert.deepEqual(
        { rows: comparable(mine.rows), summary: mine.summary },
        { rows: comparable(agentSide[i].rows), summary: agentSide[i].summary },
        `request ${i}: ${JSON.stringify(r)}`,
      );
      for (const row of ssh.rows) if (row.kind === 'entry') assert.equal(row.entry.mtimeNsec, 0);
    }
    // The loop is an error row exactly once, and the followed link's children are listed.
    const followed = await drain(backend.walk(requests[8], signal));
    const errors = followed.rows.flatMap((r) =>
      r.kind === 'entry' && r.entry.error ? [`${r.entry.path} ${r.entry.error.detail}`] : [],
    );
    assert.deepEqual(errors.sort(), [
      'broken symlink target does not exist',
      'locked permission denied',
      'loop symlink loop',
    ]);
    assert.ok(followed.rows.some((r) => r.kind === 'entry' && r.entry.path.toString() === 'link-dir/one'));
  });

  it('a name that is not UTF-8 is an error row, not a wrong name silently', async () => {
    const { rows } = await drain(backend.walk(req(join(sshd.dir, 'odd'), { maxDepth: 1 }), signal));
    const byName = new Map(rows.flatMap((r) => (r.kind === 'entry' ? [[r.entry.path.toString(), r.entry]] : [])));
    assert.equal(byName.get('fine')?.size, 2);
    assert.equal(byName.get('fine')?.error, undefined);
    const odd = byName.get('f\uFFFD\uFFFD');
    assert.equal(odd?.error?.code, 'ERROR');
    assert.match(odd?.error?.detail ?? '', /not valid UTF-8/);
  });

  it('stat gives sizes, modes, owner ids and whole-second times, and says what it cannot know', async () => {
    const info = await backend.stat(join(root, 'a', 'one'), false, signal);
    assert.equal(info.entry.type, 'file');
    assert.equal(info.entry.size, 1);
    assert.equal(info.entry.mtimeSec, 1_700_000_000);
    assert.equal(info.entry.mtimeNsec, 0);
    assert.equal(info.entry.uid, sshd.uid);
    assert.equal(info.owner, String(sshd.uid));
    assert.equal(info.group, String(sshd.gid));
    assert.deepEqual(info.notes, [SFTP_STAT_NOTE]);
    await assertEdgeStats(backend, root, signal);
  });

  it('the tools say the host was listed over SFTP, in text and structured output', async () => {
    const fleet = await loadFleet({ inventoryPath: inventory, logger });
    const ctx: ToolContext = { fleet, options: resolveGatewayOptions(), signal };
    const note = { host: 'busybox', note: SFTP_NOTE };
    try {
      const tree = await listDirectory(ctx, { host: 'busybox', path: root, depth: 2, max_items_per_dir: 5 });
      assert.deepEqual(tree.structured.notes, [note]);
      assert.ok(tree.text.split('\n').includes(`[NOTE] ${SFTP_NOTE}`), tree.text);
      const entries = treeEntryPaths(tree.structured);
      const locked = entries.find((e) => e.path === 'locked' && e.error);
      assert.deepEqual(locked?.error, { code: 'DENIED', detail: 'permission denied' });
      assert.ok(entries.some((e) => e.path === 'big' && e.type === 'warning'));

      const files = await listFiles(ctx, {
        host: 'busybox',
        path: root,
        order_by: 'size',
        sort: 'descending',
        top_n: 3,
        type: 'file',
      });
      assert.deepEqual(files.structured.notes, [note]);
      assert.ok(files.text.includes(`busybox: [NOTE] ${SFTP_NOTE}`), files.text);
      assert.deepEqual(
        files.structured.items.map((f) => [f.path, f.size]),
        [
          ['sparse', 5 * 1024 ** 3],
          ['sp ace', 5],
          ['.hidden', 1],
        ],
      );
      assert.equal(
        files.structured.items.find((f) => f.path === 'sp ace')?.modified.slice(0, 19),
        '2020-09-13T12:26:40',
      );

      const dirs = await listDirectories(ctx, { host: 'busybox', path: join(root, 'a'), order_by: 'size' });
      assert.deepEqual(dirs.structured.notes, [note]);
      assert.ok(dirs.text.includes(`[NOTE] ${SFTP_NOTE}`), dirs.text);
      const b = dirs.structured.nodes.find((n) => n.name === 'b');
      // du -b: b, b/two, b/c, b/c/d, b/c/d/deep (directories 4096 each on ext4/overlay, whatever they are here).
      const dirSize = (p: string) => Number(execFileSync('stat', ['-c', '%s', p], { encoding: 'utf8' }));
      const a = join(root, 'a');
      assert.equal(
        b?.size,
        dirSize(join(a, 'b')) + 2 + dirSize(join(a, 'b', 'c')) + dirSize(join(a, 'b', 'c', 'd')) + 4,
      );
      assert.equal(b?.size_partial, undefined);

      const st = await statPaths(ctx, { host: 'busybox', path: join(root, 'a', 'one') });
      assert.deepEqual(st.structured.results[0].notes, [SFTP_STAT_NOTE]);
      assert.equal(st.structured.results[0].owner, String(sshd.uid));
      assert.ok(st.text.split('\n').includes(`[NOTE] ${SFTP_STAT_NOTE}`), st.text);
    } finally {
      fleet.close?.();
    }
  });
});
