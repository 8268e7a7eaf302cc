// disk_usage's total of path without a second walk of the tree: taken from the listing's
// depth-1 rows and path's own entries, and the total walk only where a depth-1 row is not in
// the listing; either way the same total, and the rows shown are the top_n asked for.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dir, FakeFleet, file, MemoryBackend } from '../../testing/fake-fleet.js';
import { diskUsage, toolContext } from '../../testing/tool-calls.js';

/** The walks that sized path's children again for the total (every type, one level, sized). */
const totalWalks = (b: MemoryBackend) =>
  b.requests.filter((r) => r.dirSizes && r.maxDepth === 1 && r.types.length === 0);

// /srv's own 4096 bytes, two files at its top, and `many` directories of 9000 bytes below big/.
const srv = (many: number) =>
  dir({
    srv: dir({
      'a.log': file(100),
      'b.log': file(200),
      big: dir(Object.fromEntries(Array.from({ length: many }, (_, i) => [`d${i}`, dir({}, { du: 9000 })])), {
        du: 9000 * many + 4096,
      }),
      small: dir({}, { du: 10 }),
    }),
  });
const total = (many: number) => 4096 + 100 + 200 + 9000 * many + 4096 + 10;

test('disk_usage: the total from the listing when every depth-1 directory is in it, with no second walk', async () => {
  const b = new MemoryBackend(srv(3));
  // top_n 1 shows only big/, yet the host ranked small/ too: the total needs no walk of its own.
  const r = await diskUsage(toolContext(new FakeFleet({ a: b })), { host: 'a', path: '/srv', depth: 2, top_n: 1 });
  assert.deepEqual(r.structured.path_totals, [{ host: 'a', size: total(3) }]);
  assert.deepEqual(
    r.structured.rows.map((x) => x.path),
    ['big'],
  );
  assert.equal(r.structured.found, 5);
  assert.equal(totalWalks(b).length, 0);
});

test('disk_usage: the total walk where a depth-1 directory was ranked out of the listing, the same total', async () => {
  // 1000 directories of 9000 bytes rank small/ (10 bytes) out of what the host lists.
  const b = new MemoryBackend(srv(1000), { frozen: true });
  const r = await diskUsage(toolContext(new FakeFleet({ a: b })), { host: 'a', path: '/srv', depth: 2, top_n: 2 });
  assert.deepEqual(r.structured.path_totals, [{ host: 'a', size: total(1000) }]);
  assert.deepEqual(
    r.structured.rows.map((x) => x.path),
    ['big', 'big/d0'],
  );
  assert.equal(r.structured.found, 1002);
  assert.equal(totalWalks(b).length, 1);
});
