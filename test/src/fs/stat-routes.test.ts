// The agent's two ways of stat'ing an entry give the same listing: fstatat on the
// directory descriptor (the native module, fsat.ts) and lstat through the
// descriptor's magic link /proc/self/fd/N/<name> (FLEETLS_NATIVE=0, the fallback). Every
// walk the remote routes are held to, and links followed, over hostile and non-UTF-8
// names, links (to a directory, a loop, dangling), hard links, a fifo, a sparse file, a
// time before 1970 and an unreadable directory, as an unprivileged user so that directory
// is unreadable; directory sizes (du) included.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { HOSTILE_NAMES } from '@fleetls/core/testing';
import { statFromWire, type WireStatResponseOut } from '@fleetls/proto';
import { makeTree, range, type TreeNode } from '@fleetls/testkit';
import { Metadata } from '@grpc/grpc-js';
import { agentClient, startAgent, walkAll } from '../helpers/agent-process.js';
import { parityRequests, REMOTE_EDGES, rowLines, walkReq, walksAsUser } from '../helpers/walks.js';

const asRoot = process.getuid?.() === 0;
/** nobody when the suite runs as root (CI), so the mode-000 directory is unreadable; else the user running it. */
const user = asRoot ? { uid: 65534, gid: 65534 } : { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };

describe('fstatat and the magic link list alike', () => {
  const root = mkdtempSync(join(tmpdir(), 'fleetls-stat-routes-'));
  const tree = join(root, 'tree');

  before(() => {
    chmodSync(root, 0o755); // mkdtemp's 0700 would keep nobody out of the whole tree
    makeTree(
      tree,
      [
        ...HOSTILE_NAMES.map((n): [string, TreeNode] => [`hostile/${n}`, n]),
        [Buffer.from([0xff, 0xfe, 0x0a, 0x41]), 'bytes'],
        ['a/b/c/d/deep', 'deep'],
        ['a/one', { data: 'x', mtime: 1_600_000_000.123456 }],
        ['a/same-size', { size: 4096, mtime: 1_600_000_000 }],
        ['a/also-same', { size: 4096, mtime: 1_600_000_000 }],
        ['a/fifo', { fifo: true }],
        ['a/hard', { hardLink: 'a/one' }],
        ['a/b/hard2', { hardLink: 'a/one' }],
        ...range(
          600,
          (i) => `big/f${String(i).padStart(3, '0')}`,
          (i) => ({ size: (i * 37) % 1000, mtime: 1_600_000_000 + (i % 7) }),
        ),
        ...REMOTE_EDGES,
        // Readable, not searchable (r--): both routes list its names, each stat denied.
        ['noexec/listed', 'l'],
        ['noexec/sub/inner', 'i'],
        ['noexec', { dir: true, uid: 0, gid: 0, mode: 0o444 }],
      ],
      asRoot ? { uid: user.uid, gid: user.gid } : {},
    );
    // Before 1970, with a fraction (node:fs's utimes takes a negative time as now).
    execFileSync('touch', ['-h', '-d', '@-86399.75', join(tree, 'a', 'one')]);
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('for every walk the remote routes are held to, links followed and sized directories', () => {
    const requests = [
      ...parityRequests(tree, { modifiedCap: 300 }),
      walkReq(tree, { maxDepth: 6, followSymlinks: true }),
      walkReq(tree, { maxDepth: 6, dirSizes: true, order: 'size', direction: 'descending', oneFileSystem: true }),
      walkReq(tree, { shape: 'ranked', order: 'modified', direction: 'descending', topN: 25, maxDepth: 6 }),
    ];
    const native = walksAsUser(user, requests);
    const proc = walksAsUser(user, requests, { FLEETLS_NATIVE: '0' });
    assert.match(native.route, /^fstatat /);
    assert.equal(proc.route, 'proc-fd (FLEETLS_NATIVE=0)');
    for (const [i, r] of requests.entries())
      assert.deepEqual(native.walks[i], proc.walks[i], `request ${i}: ${JSON.stringify(r)}`);
    // The tree is what it is meant to be: its edges are in the first listing, the unreadable directory denied.
    const { rows } = native.walks[0] as {
      rows: { entry?: { path: { data: number[] }; type: string; error?: { code: string } } }[];
    };
    const seen = new Map(rows.flatMap((r) => (r.entry ? [[Buffer.from(r.entry.path.data).toString(), r.entry]] : [])));
    assert.equal(seen.get('a/fifo')?.type, 'fifo', `${seen.size} entries`);
    assert.equal(seen.get('link-dir')?.type, 'symlink');
    assert.equal(seen.get('a/hard')?.type, 'file');
    if (asRoot) {
      assert.equal(seen.get('locked')?.error?.code, 'DENIED');
      assert.equal(seen.get('noexec/listed')?.error?.code, 'DENIED');
      assert.equal(seen.get('noexec/sub')?.type, 'dir');
    }
  });

  it('a real agent walks it through its workers by the module, rows as in-process, and Node says nothing', async () => {
    const agent = await startAgent({ allow: [tree] });
    const client = agentClient(agent.address);
    try {
      const listening = agent.logs().find((l) => l.msg === 'listening') as { statRoute?: string } | undefined;
      assert.match(String(listening?.statRoute), /^fstatat \(.*fsat\.node\)$/);
      const walked = await walkAll(client, { path: tree, maxDepth: 6 });
      assert.ok(rowLines(walked.rows).includes('a/fifo fifo'), rowLines(walked.rows).slice(0, 20).join('\n'));
      await walkAll(client, { path: tree, maxDepth: 6, dirSizes: true, followSymlinks: true });
      // A time before 1970 with a fraction, in a walk and in Stat: the second floored, the
      // nanosecond in [0, 1e9) as the wire's uint32 (and find's %T@ on the SSH route) has it.
      const one = walked.rows.find((r) => r.kind === 'entry' && r.entry.path.toString() === 'a/one');
      assert.deepEqual(one?.kind === 'entry' ? [one.entry.mtimeSec, one.entry.mtimeNsec] : [], [-86400, 250_000_000]);
      const st = await new Promise<WireStatResponseOut>((resolve, reject) =>
        client.Stat({ path: join(tree, 'a', 'one') }, new Metadata(), (err, res) =>
          err || !res ? reject(err) : resolve(res),
        ),
      );
      const info = statFromWire(st);
      assert.deepEqual([info.entry.mtimeSec, info.entry.mtimeNsec], [-86400, 250_000_000]);
      assert.deepEqual([info.atimeSec, info.atimeNsec], [-86400, 250_000_000]);
      // Descriptors the module opened are closed by the walk, which Node's per-worker
      // tracking would warn of once per close (walk-pool.ts).
      assert.doesNotMatch(agent.stderr(), /\(node:\d+\) Warning/);
    } finally {
      client.close();
      await agent.stop();
    }
  });
});
