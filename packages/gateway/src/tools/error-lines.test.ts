// Error lines name what failed: the path of a listing that is not a directory, the path
// once in [NOT_FOUND], each allowed root once in [DENIED], and du of a file says why.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertAllowed, FleetError, type Row, type WalkRequest, type WalkSummary } from '@fleetls/core';
import { dir, FakeFleet, file, MemoryBackend } from '../testing/fake-fleet.js';
import { diskUsage, listDirectories, listDirectory, listFiles, toolContext } from '../testing/tool-calls.js';

const tree = dir({ etc: dir({ passwd: file(1200), 'hosts.d': dir({}) }) });

/** A host that refuses as an agent does: its own message, path included. */
class Refusing extends MemoryBackend {
  constructor(private readonly fail: (req: WalkRequest) => FleetError) {
    super(tree);
  }
  override walk(req: WalkRequest): AsyncGenerator<Row[], WalkSummary, void> {
    const fail = this.fail;
    return (async function* (): AsyncGenerator<Row[], WalkSummary, void> {
      yield* [];
      throw fail(req);
    })();
  }
}

test('list_directory of a file: [ERROR] names the path and says not a directory', async () => {
  const r = await listDirectory(toolContext(new FakeFleet({ h: new MemoryBackend(tree) })), {
    host: 'h',
    path: '/etc/passwd',
  });
  assert.equal(r.text, '[ERROR] /etc/passwd — not a directory');
  assert.equal(r.structured.hosts[0].status, 'error');
  assert.equal(r.structured.hosts[0].message, 'not a directory');
});

test('[NOT_FOUND] names the path once', async () => {
  const f = new FakeFleet({
    h: new Refusing((req) => new FleetError('not_found', `path does not exist: ${req.path}`)),
  });
  const r = await listDirectory(toolContext(f), { host: 'h', path: '/p' });
  assert.equal(r.text, '[NOT_FOUND] /p — path does not exist');
});

test('[DENIED] names each allowed root once', async () => {
  const roots = ['/var/log', '/srv', '/var/log', '/srv'];
  const denied = (() => {
    try {
      assertAllowed('/root', roots);
    } catch (err) {
      return err as FleetError;
    }
    throw new Error('not refused');
  })();
  assert.equal(denied.message, "path '/root' is outside the allowed roots (/var/log, /srv)");
  const f = new FakeFleet({ h: new Refusing(() => denied) });
  const r = await listFiles(toolContext(f), { host: 'h', path: '/root' });
  assert.match(r.text, /^\[DENIED\] \/root — .*outside the allowed roots \(\/var\/log, \/srv\)$/m);
});

test('disk_usage of a file: an error naming the path and the reason, not "no directories"', async () => {
  const r = await diskUsage(toolContext(new FakeFleet({ h: new MemoryBackend(tree) })), {
    host: 'h',
    path: '/etc/passwd',
  });
  assert.doesNotMatch(r.text, /No directories under/);
  assert.match(r.text, /^\[ERROR\] \/etc\/passwd — not a directory$/m);
});

test('a lower-bound size has one mark everywhere: ≥ in list_directories as in disk_usage', async () => {
  // hosts.d has no recursive size on record: a lower bound, as an unreadable subdirectory makes one.
  const f = new FakeFleet({ h: new MemoryBackend(tree) });
  const dirs = await listDirectories(toolContext(f), { host: 'h', path: '/etc', order_by: 'size' });
  assert.match(dirs.text, /≥0 B/);
  assert.doesNotMatch(dirs.text, /B\+/);
  assert.equal(dirs.structured.nodes[0].size_partial, true);
});
