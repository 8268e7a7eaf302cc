// The Fleet API starts scans and reads their pages and status (issue 21 ask 4), over real
// gRPC: an RPC past its deadline answers what arrived, the others pending, a scan and a
// next_cursor; the same RPC with that cursor, from a new client, gives the rest once;
// ScanStatus says how far it is and cancels it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { resolveGatewayOptions } from '../../fleet/options.js';
import { createScanRegistry } from '../../scans/scan-registry.js';
import { dir, FakeFleet, file, HangingBackend, MemoryBackend } from '../../testing/fake-fleet.js';
import { fleetGrpcClient } from '../../testing/fleet-grpc.js';
import { startFleetGrpcServer } from './server.js';

const logger = pino({ level: 'silent' });
const TOKEN = 'fleet-api-scan-token';
// A call waits 0.5 s (its deadline less the 2 s kept to present); a scan host 3 s.
const options = resolveGatewayOptions({ callDeadlineMs: 2500, scanHostDeadlineMs: 3000 });

const clientOf = (address: string) => fleetGrpcClient(address, TOKEN);

interface Page {
  rows: { host: string; row: { entry?: { path: Buffer } } }[];
  hosts: { host: string; status: string }[];
  nextCursor: string;
  scan?: { id: string; state: string; complete: boolean; hostsDone: number; hostsTotal: number };
}

test('a Fleet RPC past its deadline is a scan: pages by next_cursor from any connection, ScanStatus', async () => {
  const never = new HangingBackend();
  const fleet = new FakeFleet({
    fast: new MemoryBackend(dir({ srv: dir({ 'a.log': file(3) }) })),
    never,
  });
  const scans = createScanRegistry(options, logger);
  const server = await startFleetGrpcServer({
    fleet,
    options,
    logger,
    host: '127.0.0.1',
    port: 0,
    token: TOKEN,
    scans,
  });
  const first = clientOf(server.address);
  try {
    const p1 = await first.call<Page>('ListDirectory', { host: 'all', path: '/srv' });
    assert.deepEqual(
      p1.rows.map((r) => `${r.host}:${r.row.entry?.path.toString()}`),
      ['fast:a.log'],
    );
    assert.deepEqual(
      p1.hosts.map((h) => `${h.host}:${h.status}`),
      ['fast:ok', 'never:pending'],
    );
    assert.equal(p1.scan?.state, 'running');
    assert.equal(p1.scan?.complete, false);
    assert.match(p1.nextCursor, /^scan\./);
    first.close();

    const second = clientOf(server.address);
    try {
      const status = await second.call<{ scan: { hostsDone: number; hostsTotal: number }; cancelled: boolean }>(
        'ScanStatus',
        { cursor: p1.nextCursor },
      );
      assert.deepEqual([status.scan.hostsDone, status.scan.hostsTotal, status.cancelled], [1, 2, false]);
      // The never-answering host times out at the scan's host deadline: the last page says so.
      let last = await second.call<Page>('ListDirectory', { host: 'all', path: '/srv', cursor: p1.nextCursor });
      const rows = [...last.rows];
      while (last.nextCursor) {
        last = await second.call<Page>('ListDirectory', { host: 'all', path: '/srv', cursor: last.nextCursor });
        rows.push(...last.rows);
      }
      assert.deepEqual(rows, []);
      assert.deepEqual(
        last.hosts.map((h) => `${h.host}:${h.status}`),
        ['never:timeout'],
      );
      assert.equal(last.scan?.complete, true);
      assert.equal(never.aborts, 1);

      // ScanStatus cancel stops a running scan's walks.
      const again = await second.call<Page>('ListDirectory', { host: 'all', path: '/srv' });
      const cancelled = await second.call<{ scan: { state: string }; cancelled: boolean }>('ScanStatus', {
        cursor: again.nextCursor,
        cancel: true,
      });
      assert.deepEqual([cancelled.scan.state, cancelled.cancelled], ['cancelled', true]);
      assert.equal(never.aborts, 2);
    } finally {
      second.close();
    }
  } finally {
    first.close();
    await server.close();
    scans.close();
  }
});
