// The Fleet API's DiffDirectory, DiskUsage and ListFiles filters over a real gRPC server on
// an in-memory fleet: the same domain answers the MCP tools give, paths as bytes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { pino } from 'pino';
import { DEFAULT_GATEWAY_OPTIONS } from '../../fleet/options.js';
import { DeadBackend, dir, FakeFleet, file, MemoryBackend } from '../../testing/fake-fleet.js';
import { type FleetGrpcTest, startFleetGrpcTest } from '../../testing/fleet-grpc.js';

const TOKEN = 'fleet-api-beyond-token';
const tree = (extra: Record<string, ReturnType<typeof file>> = {}) =>
  dir({ srv: dir({ 'a.conf': file(3), big: dir({ 'x.bin': file(5000) }, { du: 9000 }), ...extra }, { du: 9100 }) });

describe('Fleet API: diff_directory, disk_usage and filters', () => {
  let fleetApi: FleetGrpcTest;

  const a = new MemoryBackend(tree());
  before(async () => {
    const fleet = new FakeFleet({
      a,
      b: new MemoryBackend(tree()),
      c: new MemoryBackend(tree({ 'odd.conf': file(1) })),
      gone: new DeadBackend(),
    });
    fleetApi = await startFleetGrpcTest({
      fleet,
      options: DEFAULT_GATEWAY_OPTIONS,
      logger: pino({ level: 'silent' }),
      token: TOKEN,
    });
  });
  after(() => fleetApi?.stop());

  const call = <T>(method: string, req: object): Promise<T> => fleetApi.call<T>(method, req);

  it('DiffDirectory: groups, the differing entry with who has what, the dead host a status', async () => {
    type Res = {
      groups: { id: string; hosts: string[] }[];
      differences: { path: Buffer; values: { hosts: string[]; present: boolean; entry: { size: number } | null }[] }[];
      hosts: { host: string; status: string }[];
    };
    const res = await call<Res>('DiffDirectory', { host: 'all', path: '/srv' });
    assert.deepEqual(
      res.groups.map((g) => [g.id, g.hosts]),
      [
        ['A', ['a', 'b']],
        ['B', ['c']],
      ],
    );
    assert.equal(res.differences.length, 1);
    assert.equal(res.differences[0].path.toString(), 'odd.conf');
    assert.deepEqual(
      res.differences[0].values.map((v) => [v.hosts, v.present, v.entry?.size ?? null]),
      [
        [['a', 'b'], false, null],
        [['c'], true, 1],
      ],
    );
    assert.equal(res.hosts.find((h) => h.host === 'gone')?.status, 'unreachable');
    await assert.rejects(
      call('DiffDirectory', { host: 'all', path: '/srv', compare: ['colour'] }),
      (e: grpc.ServiceError) => {
        assert.equal(e.code, grpc.status.INVALID_ARGUMENT);
        assert.match(e.details, /compare: "colour" is not an attribute/);
        return true;
      },
    );
  });

  it('DiskUsage: directories largest first with their recursive sizes', async () => {
    type HostEntries = { host: string; entry: { path: Buffer; size: number } }[];
    type Res = { entries: HostEntries; pathTotals: HostEntries };
    const res = await call<Res>('DiskUsage', { host: 'a,b', path: '/srv', depth: 1 });
    const shown = (l: HostEntries) => l.map((e) => `${e.host}:${e.entry.path.toString()}=${e.entry.size}`);
    assert.deepEqual(shown(res.entries), ['a:big=9000', 'b:big=9000']);
    // du's root line: /srv's own 4096 bytes, a.conf's 3 and big's 9000.
    assert.deepEqual(shown(res.pathTotals), ['a:=13099', 'b:=13099']);
  });

  it('DiskUsage: one_file_system false is asked for, unset is the tool default (true)', async () => {
    const walked = async (req: object) => {
      a.requests.length = 0;
      await call('DiskUsage', { host: 'a', path: '/srv', ...req });
      assert.ok(a.requests.length > 0);
      return [...new Set(a.requests.map((r) => r.oneFileSystem))];
    };
    assert.deepEqual(await walked({ oneFileSystem: false }), [false]);
    assert.deepEqual(await walked({}), [true]);
    assert.deepEqual(await walked({ oneFileSystem: true }), [true]);
  });

  it('a number set to 0 where its minimum is 1 is refused with the tool message; unset is the default', async () => {
    const zeros: [string, object, string][] = [
      ['ListDirectory', { depth: 0 }, 'depth'],
      ['ListDirectory', { maxItemsPerDir: 0 }, 'max_items_per_dir'],
      ['ListFiles', { topN: 0 }, 'top_n'],
      ['ListFiles', { limit: 0 }, 'limit'],
      ['ListDirectories', { topN: 0 }, 'top_n'],
      ['DiffDirectory', { depth: 0 }, 'depth'],
      ['DiffDirectory', { maxItemsPerDir: 0 }, 'max_items_per_dir'],
      ['DiskUsage', { depth: 0 }, 'depth'],
      ['DiskUsage', { topN: 0 }, 'top_n'],
    ];
    for (const [method, zero, arg] of zeros) {
      await assert.rejects(call(method, { host: 'a', path: '/srv', ...zero }), (e: grpc.ServiceError) => {
        assert.equal(e.code, grpc.status.INVALID_ARGUMENT, `${method} ${arg}`);
        assert.ok(e.details.startsWith(arg), `${method} ${arg}: ${e.details}`);
        return true;
      });
      await call(method, { host: 'a', path: '/srv' });
    }
    // 0 where it is in bounds is an argument like any other: list_files max_depth 0 lists path's own entries.
    type Res = { entries: { entry: { path: Buffer } }[] };
    const own = await call<Res>('ListFiles', { host: 'a', path: '/srv', maxDepth: 0, type: 'any' });
    assert.deepEqual(own.entries.map((e) => e.entry.path.toString()).sort(), ['a.conf', 'big']);
  });

  it('ListFiles: the find-like filters as the tool takes them', async () => {
    type Res = { entries: { host: string; entry: { path: Buffer } }[] };
    const res = await call<Res>('ListFiles', { host: 'a', path: '/srv', maxDepth: 2, minSize: '1K', type: 'file' });
    assert.deepEqual(
      res.entries.map((e) => e.entry.path.toString()),
      ['big/x.bin'],
    );
    await assert.rejects(call('ListFiles', { host: 'a', path: '/srv', perm: 'rwx' }), /perm: "rwx" is not a mode/);
  });
});
