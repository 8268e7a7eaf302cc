// The real fleetls-agent on a loopback port, spoken to over gRPC: listings against `find`,
// caps, refusals, Stat, health.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Entry, Row } from '@fleetls/core';
import { type AgentClient, statFromWire, type WireStatResponseOut } from '@fleetls/proto';
import { makeTree, range } from '@fleetls/testkit';
import * as grpc from '@grpc/grpc-js';
import { type AgentProcess, agentClient, healthCheck, startAgent, walkAll } from '../helpers/agent-process.js';

let root: string;
let tree: string;
let outside: string;
let agent: AgentProcess;
let client: AgentClient;
const BAD = Buffer.from([0x6e, 0x6f, 0x2d, 0xff, 0xfe, 0x2e, 0x74, 0x78, 0x74]); // "no-\xff\xfe.txt"

before(async () => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-agent-')));
  tree = path.join(root, 'tree');
  outside = path.join(root, 'outside');
  makeTree(outside, { secret: 'x' });
  makeTree(tree, [
    ['README.md', 'hello world'],
    ['src/main.ts', 'x'.repeat(1234)],
    ['src/lib/util.ts', 'y'.repeat(77)],
    ['src/lib/deep/deeper/leaf.txt', 'z'],
    ['name with\nnewline', 'nl'],
    ['tab\tand "quotes"', 'q'],
    ['.hidden', 'h'],
    [BAD, 'bad bytes'],
    ['empty', { dir: true }],
    ['link-to-main', { link: 'src/main.ts' }],
    ['escape', { link: outside }],
    ['fifo', { fifo: true }],
    ...range(
      30,
      (i) => `many/f${String(i).padStart(2, '0')}`,
      (i) => 'm'.repeat(i),
    ),
    ...range(
      3,
      (i) => `few/g${i}`,
      () => '',
    ),
  ]);
  agent = await startAgent({ allow: [tree], args: ['--max-depth', '10', '--max-entries', '5000'] });
  client = agentClient(agent.address);
});

after(async () => {
  client?.close();
  await agent?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

const FIND_TYPE: Record<string, string> = {
  f: 'file',
  d: 'dir',
  l: 'symlink',
  p: 'fifo',
  s: 'socket',
  c: 'char',
  b: 'block',
};

/** `find DIR -mindepth 1 -maxdepth D -printf '%y %s %T@ %P\0'` as comparable lines (raw bytes as latin1). */
function findLines(dir: string, depth: number): string[] {
  const out = execFileSync('find', [dir, '-mindepth', '1', '-maxdepth', String(depth), '-printf', '%y %s %T@ %P\\0']);
  const lines: string[] = [];
  let start = 0;
  for (let i = 0; i < out.length; i++) {
    if (out[i] !== 0) continue;
    const rec = out.subarray(start, i).toString('latin1');
    start = i + 1;
    const [y, size, t, ...rest] = rec.split(' ');
    const [sec, frac = ''] = t.split('.');
    const nsec = Number(frac.padEnd(9, '0').slice(0, 9));
    lines.push(`${FIND_TYPE[y]} ${size} ${sec}.${String(nsec).padStart(9, '0')} ${rest.join(' ')}`);
  }
  return lines.sort();
}

function entryLine(e: Entry): string {
  return `${e.type} ${e.size} ${e.mtimeSec}.${String(e.mtimeNsec).padStart(9, '0')} ${e.path.toString('latin1')}`;
}

const entries = (rows: Row[]): Entry[] => rows.flatMap((r) => (r.kind === 'entry' ? [r.entry] : []));

function grpcError(err: unknown): grpc.ServiceError {
  assert.ok(err && typeof err === 'object' && 'code' in err, `expected a gRPC error, got ${String(err)}`);
  return err as grpc.ServiceError;
}

async function refused(req: Parameters<typeof walkAll>[1], code: grpc.status, message: RegExp): Promise<void> {
  await assert.rejects(walkAll(client, req), (err) => {
    const e = grpcError(err);
    assert.equal(e.code, code, `code ${e.code} (${e.details})`);
    assert.match(e.details, message);
    return true;
  });
}

function stat(req: { path: string; followSymlinks?: boolean }): Promise<WireStatResponseOut> {
  return new Promise((resolve, reject) => {
    client.Stat(req, new grpc.Metadata(), { deadline: Date.now() + 5000 }, (err, res) =>
      err ? reject(err) : resolve(res as WireStatResponseOut),
    );
  });
}

describe('fleetls-agent Walk', () => {
  for (const depth of [1, 2, 5]) {
    it(`equals find -mindepth 1 -maxdepth ${depth} when no cap bites`, async () => {
      const { rows, summary } = await walkAll(client, { path: tree, maxDepth: depth, maxItemsPerDir: 1000 });
      assert.ok(rows.every((r) => r.kind === 'entry'));
      const got = entries(rows);
      assert.deepEqual(got.map(entryLine).sort(), findLines(tree, depth));
      assert.equal(summary.entriesSent, got.length);
      assert.deepEqual(summary.truncations, []);
      // Tree order: each row's depth matches its path and symlinks carry their target.
      for (const e of got) assert.equal(e.depth, e.path.toString('latin1').split('/').length);
      const link = got.find((e) => e.path.toString() === 'link-to-main');
      assert.deepEqual(link?.linkTarget, Buffer.from('src/main.ts'));
      assert.ok(
        got.some((e) => e.path.equals(BAD)),
        'the non-UTF-8 name comes back byte for byte',
      );
    });
  }

  it('carries full metadata (mode, uid, gid, inode, nlink, utc offset)', async () => {
    const { rows } = await walkAll(client, { path: tree, maxDepth: 1 });
    const readme = entries(rows).find((e) => e.path.toString() === 'README.md');
    assert.ok(readme);
    const st = fs.lstatSync(path.join(tree, 'README.md'));
    assert.equal(readme.mode, st.mode);
    assert.equal(readme.uid, st.uid);
    assert.equal(readme.gid, st.gid);
    assert.equal(readme.inode, st.ino);
    assert.equal(readme.nlink, st.nlink);
    assert.equal(readme.utcOffsetMin, -new Date(st.mtimeMs).getTimezoneOffset() || 0);
  });

  it('shows max_items_per_dir per capped directory, reports hidden counts, never exceeds max_entries', async () => {
    const { rows } = await walkAll(client, { path: tree, maxDepth: 2, maxItemsPerDir: 10 });
    const underMany = entries(rows).filter((e) => e.path.toString().startsWith('many/'));
    assert.equal(underMany.length, 10);
    // name order, ascending: the first ten
    assert.deepEqual(
      underMany.map((e) => e.path.toString()),
      Array.from({ length: 10 }, (_, i) => `many/f${String(i).padStart(2, '0')}`),
    );
    const truncs = rows.flatMap((r) => (r.kind === 'truncation' ? [r.truncation] : []));
    const many = truncs.find((t) => t.dir.toString() === 'many');
    assert.deepEqual(many && { shown: many.shown, total: many.total, reason: many.reason }, {
      shown: 10,
      total: 30,
      reason: 'items_per_dir',
    });
    assert.equal(
      truncs.find((t) => t.dir.toString() === 'few'),
      undefined,
    );
    assert.equal(entries(rows).filter((e) => e.path.toString().startsWith('few/')).length, 3);

    for (const maxEntries of [1, 7, 20]) {
      const r = await walkAll(client, { path: tree, maxDepth: 5, maxItemsPerDir: 1000, maxEntries });
      assert.ok(entries(r.rows).length <= maxEntries, `${entries(r.rows).length} > ${maxEntries}`);
      assert.equal(entries(r.rows).length, maxEntries);
      assert.ok(r.summary.truncations.some((t) => t.reason === 'max_entries'));
    }
  });

  it('caps the root too with cap_root, ordered by size descending', async () => {
    const { rows } = await walkAll(client, {
      path: path.join(tree, 'many'),
      maxDepth: 1,
      maxItemsPerDir: 5,
      capRoot: true,
      order: 'ORDER_SIZE',
      direction: 'DIRECTION_DESCENDING',
    });
    assert.deepEqual(
      entries(rows).map((e) => e.size),
      [29, 28, 27, 26, 25],
    );
    const t = rows.find((r) => r.kind === 'truncation');
    assert.ok(t && t.kind === 'truncation');
    assert.equal(t.truncation.total, 30);
  });

  it('refuses bad requests with a message naming the problem, and keeps serving', async () => {
    await refused({ path: 'relative/path' }, grpc.status.INVALID_ARGUMENT, /path/);
    await refused({ path: `${tree}/a\0b` }, grpc.status.INVALID_ARGUMENT, /NUL|\\0|null/i);
    await refused({ path: outside }, grpc.status.PERMISSION_DENIED, /allowed/);
    await refused({ path: '/etc' }, grpc.status.PERMISSION_DENIED, /allowed/);
    await refused({ path: `${tree}/../outside` }, grpc.status.PERMISSION_DENIED, /allowed|outside/);
    await refused({ path: `${tree}/escape` }, grpc.status.PERMISSION_DENIED, /outside the allowed roots/);
    await refused({ path: tree, maxDepth: 11 }, grpc.status.INVALID_ARGUMENT, /max_depth.*10/);
    await refused({ path: tree, maxEntries: 5001 }, grpc.status.INVALID_ARGUMENT, /max_entries.*5000/);
    await refused({ path: `${tree}/does-not-exist` }, grpc.status.NOT_FOUND, /does not exist/);
    const ok = await walkAll(client, { path: tree, maxDepth: 1 });
    assert.ok(entries(ok.rows).length > 5);
    assert.equal(await healthCheck(agent.address), 'SERVING');
    assert.equal(agent.child.exitCode, null);
  });

  it('lists a followed symlink leaving the roots as DENIED, and the rest', async () => {
    const { rows } = await walkAll(client, { path: tree, maxDepth: 1, followSymlinks: true });
    const esc = entries(rows).find((e) => e.path.toString() === 'escape');
    assert.deepEqual(esc?.error, { code: 'DENIED', detail: 'symlink target outside allowed roots' });
    const link = entries(rows).find((e) => e.path.toString() === 'link-to-main');
    assert.equal(link?.type, 'file');
    assert.equal(link?.size, 1234);
    assert.ok(entries(rows).some((e) => e.path.toString() === 'README.md'));
  });
});

describe('fleetls-agent Stat', () => {
  it('describes a path with owner and group names', async () => {
    const res = statFromWire(await stat({ path: path.join(tree, 'src/main.ts') }));
    const st = fs.lstatSync(path.join(tree, 'src/main.ts'), { bigint: true });
    assert.equal(res.entry.type, 'file');
    assert.equal(res.entry.size, 1234);
    assert.equal(res.entry.mtimeSec, Number(st.mtimeNs / 1_000_000_000n));
    assert.equal(res.entry.mtimeNsec, Number(st.mtimeNs % 1_000_000_000n));
    const passwd = fs.readFileSync('/etc/passwd', 'utf8');
    const name = passwd
      .split('\n')
      .map((l) => l.split(':'))
      .find((f) => Number(f[2]) === Number(st.uid))?.[0];
    assert.equal(res.owner, name ?? String(st.uid));
    assert.match(res.agentVersion, /^\d+\.\d+\.\d+/);
  });

  it('describes a symlink, or its target when following', async () => {
    const link = statFromWire(await stat({ path: path.join(tree, 'link-to-main') }));
    assert.equal(link.entry.type, 'symlink');
    assert.deepEqual(link.entry.linkTarget, Buffer.from('src/main.ts'));
    const target = statFromWire(await stat({ path: path.join(tree, 'link-to-main'), followSymlinks: true }));
    assert.equal(target.entry.type, 'file');
    assert.equal(target.entry.size, 1234);
  });

  it('refuses like Walk does', async () => {
    for (const [p, code] of [
      ['relative', grpc.status.INVALID_ARGUMENT],
      [outside, grpc.status.PERMISSION_DENIED],
      [`${tree}/escape/secret`, grpc.status.PERMISSION_DENIED],
      [`${tree}/nope`, grpc.status.NOT_FOUND],
    ] as const) {
      await assert.rejects(stat({ path: p }), (err) => {
        assert.equal(grpcError(err).code, code, `${p}: ${grpcError(err).details}`);
        return true;
      });
    }
  });
});

describe('fleetls-agent process', () => {
  it('serves health and logs walks as JSON on stderr', async () => {
    assert.equal(await healthCheck(agent.address), 'SERVING');
    assert.equal(await healthCheck(agent.address, undefined, 'fleetls.v1.Agent'), 'SERVING');
    const end = await agent.waitForLog((l) => l.msg === 'walk end');
    assert.equal(typeof end.entriesSeen, 'number');
    assert.equal(typeof end.elapsedMs, 'number');
  });

  it('refuses every path when started with no --allow', async () => {
    const bare = await startAgent({ allow: [] });
    const c = agentClient(bare.address);
    try {
      await assert.rejects(walkAll(c, { path: tree }), (err) => {
        assert.equal(grpcError(err).code, grpc.status.PERMISSION_DENIED);
        assert.match(grpcError(err).details, /--allow/);
        return true;
      });
    } finally {
      c.close();
      await bare.stop();
    }
  });

  it('exits 0 on SIGTERM', async () => {
    const a = await startAgent({ allow: [tree] });
    const code = await a.stop('SIGTERM');
    assert.equal(code, 0, `${a.child.signalCode} ${a.stderr()}`);
    assert.ok(a.logs().some((l) => l.msg === 'shutting down'));
  });
});
