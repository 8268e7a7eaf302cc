// Paths in the Fleet API's JSON (Connect, as a dashboard or curl calls it): each entry, cut
// and difference has its path as a UTF-8 string beside the bytes, and a name that is not
// UTF-8 keeps its bytes only.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { RowSchema } from '@fleetls/proto/agent_pb';
import { pino } from 'pino';
import { createFleetHttpHandler } from '../../faces/fleet-api/connect.js';
import { startHttpServer } from '../../faces/mcp/http.js';
import { DEFAULT_GATEWAY_OPTIONS } from '../../fleet/options.js';
import { dir, FakeFleet, file, MemoryBackend } from '../../testing/fake-fleet.js';
import { entryOut, int64, rowOut, textOf } from './fleet-entries.js';

const logger = pino({ level: 'silent' });
const many = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`f${i}`, file(i)]));
const tree = (size: number) => dir({ srv: dir({ 'ünï code.txt': file(size), many: dir(many) }) });
const fleet = new FakeFleet({ a: new MemoryBackend(tree(3)), b: new MemoryBackend(tree(4)) });

test('textOf: UTF-8 bytes as text; other bytes and the empty path (the path itself) as nothing', () => {
  assert.deepEqual(textOf('pathText', Buffer.from('etc/ünï')), { pathText: 'etc/ünï' });
  assert.deepEqual(textOf('pathText', Buffer.from([0x66, 0xff, 0x6f])), {});
  assert.deepEqual(textOf('pathText', Buffer.alloc(0)), {});
  const raw = { type: 'file', size: 1, mtimeSec: 0, mtimeNsec: 0, utcOffsetMin: 0, mode: 0, uid: 0, gid: 0 } as const;
  const entry = { ...raw, path: Buffer.from([0xff]), inode: 0, nlink: 0, depth: 1 };
  assert.equal('pathText' in entryOut(entry), false, 'not UTF-8: the bytes only');
  const cut = create(
    RowSchema,
    rowOut({
      kind: 'truncation',
      truncation: { dir: Buffer.from('a/b'), shown: 1, total: 2, reason: 'items_per_dir' },
    }),
  );
  assert.equal(cut.kind.case === 'truncation' && cut.kind.value.dirText, 'a/b');
});

test('int64: whole, as protobufjs wrote numbers; not finite is 0, not a failed answer', () => {
  assert.deepEqual([1.9, 0, -2.5, 2 ** 53, Number.NaN, Number.POSITIVE_INFINITY].map(int64), [
    1n,
    0n,
    -2n,
    2n ** 53n,
    0n,
    0n,
  ]);
});

test('Fleet API JSON: rows, cuts and differences carry their path as a string', async () => {
  const fleetApi = createFleetHttpHandler({ fleet, logger, options: DEFAULT_GATEWAY_OPTIONS, caller: 'http:bearer' });
  const srv = await startHttpServer({ fleet, logger, host: '127.0.0.1', port: 0, token: 't0ken', fleetApi });
  const call = async (method: string, body: object) => {
    const res = await fetch(`${srv.url.replace(/\/mcp$/, '')}/fleetls.v1.Fleet/${method}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer t0ken' },
      body: JSON.stringify(body),
    });
    assert.equal(res.status, 200, await res.clone().text());
    return (await res.json()) as never;
  };
  try {
    const files = (await call('ListFiles', { host: 'a', path: '/srv', maxDepth: 1 })) as {
      entries: { entry: { path: string; pathText: string } }[];
    };
    const named = files.entries.map((e) => e.entry.pathText);
    assert.deepEqual(named, ['many', 'many/f0', 'many/f1', 'many/f2', 'many/f3', 'many/f4', 'ünï code.txt']);
    // The bytes stay beside the text (binary clients read them): base64 of the same UTF-8.
    assert.equal(Buffer.from(files.entries[6].entry.path, 'base64').toString('utf8'), 'ünï code.txt');

    const listing = (await call('ListDirectory', { host: 'a', path: '/srv', depth: 2, maxItemsPerDir: 2 })) as {
      rows: { row: { entry?: { pathText?: string }; truncation?: { dirText: string } } }[];
    };
    assert.deepEqual(
      listing.rows.map((r) => r.row.entry?.pathText ?? `cut ${r.row.truncation?.dirText}`),
      ['many', 'many/f0', 'many/f1', 'cut many', 'ünï code.txt'],
    );

    const diff = (await call('DiffDirectory', { host: 'a,b', path: '/srv' })) as {
      differences: { pathText: string }[];
    };
    assert.deepEqual(
      diff.differences.map((d) => d.pathText),
      ['ünï code.txt'],
    );
  } finally {
    await srv.close();
  }
});
