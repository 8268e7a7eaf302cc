// A real FUSE file system that answers normally (test/fixtures/fuse-fs.py), mounted inside
// an allowed root: directory entries whose type the kernel reports as unknown (as sshfs,
// rclone and s3fs give) are typed by lstat, and the tree lists on every path: the agent
// process over gRPC, the SSH backend with GNU find, and the SSH backend over SFTP.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Row, WalkRequest } from '@fleetls/core';
import { WALK_DEFAULTS } from '@fleetls/core';
import { createSshBackend } from '@fleetls/gateway';
import pino from 'pino';
import { type AgentProcess, agentClient, startAgent, walkAll } from '../helpers/agent-process.js';
import { type FuseMount, mountFuse } from '../helpers/fuse.js';
import { type Sshd, shimPath, sshTarget, startSshd } from '../helpers/sshd.js';
import { drain } from '../helpers/walks.js';

const logger = pino({ level: 'silent' });
const signal = new AbortController().signal;

/** What the fixture holds, as "path type size" lines in walk order. */
const EXPECTED = [
  'fuse dir 4096',
  'fuse/a.txt file 5',
  'fuse/b.txt file 5',
  'fuse/many dir 0',
  ...Array.from({ length: 300 }, (_, i) => `fuse/many/f${String(i).padStart(3, '0')} file ${i}`),
];

function lines(rows: Row[]): string[] {
  return rows.flatMap((r) =>
    r.kind === 'entry'
      ? [`${r.entry.path.toString()} ${r.entry.error ? `error ${r.entry.error.code}` : r.entry.type} ${r.entry.size}`]
      : [`truncated ${r.truncation.dir.toString()}`],
  );
}

describe('a FUSE file system whose directory entries have no type', () => {
  let sshd: Sshd;
  let fuse: FuseMount;
  let root: string;
  let shim: string;

  const request = (over: Partial<WalkRequest> = {}): WalkRequest => ({
    ...WALK_DEFAULTS,
    path: root,
    maxDepth: 3,
    maxItemsPerDir: 1000,
    ...over,
  });

  before(async () => {
    sshd = await startSshd();
    root = join(sshd.dir, 'fuse-root');
    mkdirSync(join(root, 'fuse'), { recursive: true });
    fuse = await mountFuse('answers', join(root, 'fuse'));
    shim = shimPath();
  });
  after(async () => {
    await fuse?.unmount();
    await sshd?.stop();
    if (shim) rmSync(shim, { recursive: true, force: true });
  });

  it('the agent process lists it, tree and ranked', async () => {
    let agent: AgentProcess | undefined;
    try {
      agent = await startAgent({ allow: [root] });
      const c = agentClient(agent.address);
      try {
        const tree = await walkAll(c, { path: root, maxDepth: 3, maxItemsPerDir: 1000 });
        assert.deepEqual(lines(tree.rows), EXPECTED);
        const ranked = await walkAll(c, {
          path: root,
          maxDepth: 3,
          shape: 'SHAPE_RANKED',
          order: 'ORDER_SIZE',
          direction: 'DIRECTION_DESCENDING',
          topN: 3,
        });
        // The mount point's own 4 KiB ranks first.
        assert.deepEqual(lines(ranked.rows), ['fuse dir 4096', 'fuse/many/f299 file 299', 'fuse/many/f298 file 298']);
      } finally {
        c.close();
      }
    } finally {
      await agent?.stop();
    }
  });

  it('the SSH backend lists it with GNU find', async () => {
    const backend = createSshBackend(sshTarget(sshd), { logger });
    try {
      const { rows } = await drain(backend.walk(request(), signal));
      assert.deepEqual(lines(rows), EXPECTED);
    } finally {
      backend.close();
    }
  });

  it('the SSH backend lists it over SFTP (no GNU find on the host)', async () => {
    const sftpHost = await startSshd({ extraConfig: [`SetEnv PATH=${shim}`] });
    const backend = createSshBackend(sshTarget(sftpHost), { logger });
    try {
      const { rows, summary } = await drain(backend.walk(request(), signal));
      assert.match(String(summary.notes), /SFTP/);
      assert.deepEqual(lines(rows), EXPECTED);
    } finally {
      backend.close();
      await sftpHost.stop();
    }
  });
});

// The native module's directory read stats each entry in C (fsat.c readPacked): an entry whose
// stat fails there (EIO, or ENOENT for one removed after it was listed) is an error row of its
// own, and the rest of the directory is listed, tree and ranked. (Through node:fs, with
// FLEETLS_NATIVE=0, the listed-then-gone entry of unknown type fails the whole directory's
// read: Node's readdir lstats it itself.)
describe('a FUSE file system whose entries fail their lookup', () => {
  let fuse: FuseMount;
  let root: string;
  const dir = mkdtempSync(join(tmpdir(), 'fleetls-fuse-fails-'));

  before(async () => {
    root = join(dir, 'root');
    mkdirSync(join(root, 'fails'), { recursive: true });
    fuse = await mountFuse('fails', join(root, 'fails'));
  });
  after(async () => {
    await fuse?.unmount();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the agent lists each failed entry as its error row, tree and ranked', async () => {
    const agent = await startAgent({ allow: [root] });
    const c = agentClient(agent.address);
    try {
      const tree = await walkAll(c, { path: root, maxDepth: 3, maxItemsPerDir: 1000 });
      assert.deepEqual(lines(tree.rows), [
        'fails dir 4096',
        'fails/broken.txt error ERROR 0',
        'fails/gone.txt error NOT_FOUND 0',
        'fails/ok.txt file 2',
      ]);
      const ranked = await walkAll(c, {
        path: root,
        maxDepth: 3,
        shape: 'SHAPE_RANKED',
        order: 'ORDER_SIZE',
        direction: 'DIRECTION_DESCENDING',
        topN: 5,
      });
      assert.deepEqual(lines(ranked.rows), [
        'fails dir 4096',
        'fails/ok.txt file 2',
        'fails/broken.txt error ERROR 0',
        'fails/gone.txt error NOT_FOUND 0',
      ]);
    } finally {
      c.close();
      await agent.stop();
    }
  });
});
