// Fleet.Walk over a real gRPC server on an in-memory fleet: a path a host cannot list is that
// host's status, as in the tools (not an ok host with one error row), and the call writes the
// one audit line every tool call writes.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { pino } from 'pino';
import { DEFAULT_GATEWAY_OPTIONS } from '../../fleet/options.js';
import { dir, FakeFleet, file, MemoryBackend } from '../../testing/fake-fleet.js';
import { type FleetGrpcTest, startFleetGrpcTest } from '../../testing/fleet-grpc.js';

const TOKEN = 'fleet-api-walk-token';

type Status = { host: string; status: string };
type Event = {
  host?: { host: string; state: string; status?: Status };
  rows?: { host: string; rows: { entry?: { path: Buffer } }[] };
  summary?: { hosts: Status[] };
};

describe('Fleet API: Walk', () => {
  let fleetApi: FleetGrpcTest;
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });

  before(async () => {
    const fleet = new FakeFleet({
      // One row per batch: a lone first row that is not a root failure still streams.
      alpha: new MemoryBackend(dir({ srv: dir({ 'a.log': file(3), sub: dir({ 'b.log': file(5) }) }) }), { batch: 1 }),
      beta: new MemoryBackend(dir({ other: dir({}) })),
    });
    fleetApi = await startFleetGrpcTest({
      fleet,
      options: DEFAULT_GATEWAY_OPTIONS,
      logger: pino({ level: 'info' }, sink),
      token: TOKEN,
    });
  });
  after(() => fleetApi?.stop());

  const walk = (req: object): Promise<Event[]> =>
    new Promise((resolve, reject) => {
      const events: Event[] = [];
      const stream = fleetApi.stream<Event>('Walk', req);
      stream.on('data', (e: Event) => events.push(e));
      stream.on('error', reject);
      stream.on('end', () => resolve(events));
    });

  const listDirectoryHosts = async (req: object): Promise<Status[]> =>
    (await fleetApi.call<{ hosts: Status[] }>('ListDirectory', req)).hosts;

  it('makes a path a host cannot list its status, as list_directory does', async () => {
    const events = await walk({ host: 'alpha,beta', path: '/srv' });
    const statuses = (hosts: Status[]) => hosts.map((h) => [h.host, h.status]);
    const expected = statuses(await listDirectoryHosts({ host: 'alpha,beta', path: '/srv' }));
    assert.deepEqual(expected, [
      ['alpha', 'ok'],
      ['beta', 'not_found'],
    ]);
    const summary = events.at(-1)?.summary;
    assert.ok(summary, 'the summary comes last');
    assert.deepEqual(statuses(summary.hosts), expected);
    const done = events.filter((e) => e.host?.state === 'done').map((e) => [e.host?.host, e.host?.status?.status]);
    assert.deepEqual(done.sort(), expected);
    assert.deepEqual(
      events.filter((e) => e.rows?.host === 'beta'),
      [],
      'no error row for the failed host',
    );
    assert.deepEqual(
      events.flatMap((e) => (e.rows?.host === 'alpha' ? e.rows.rows.map((r) => r.entry?.path.toString()) : [])),
      ['a.log', 'sub', 'sub/b.log'],
    );
  });

  it('refuses max_depth or max_items_per_dir set to 0 (their minimum is 1); unset is the default', async () => {
    for (const [zero, arg] of [
      [{ maxDepth: 0 }, 'max_depth'],
      [{ maxItemsPerDir: 0 }, 'max_items_per_dir'],
    ] as const) {
      await assert.rejects(walk({ host: 'alpha', path: '/srv', ...zero }), (e: grpc.ServiceError) => {
        assert.equal(e.code, grpc.status.INVALID_ARGUMENT);
        assert.ok(e.details.startsWith(arg), e.details);
        return true;
      });
    }
    assert.ok((await walk({ host: 'alpha', path: '/srv' })).at(-1)?.summary);
  });

  it('writes one audit line per Walk, as runTool does for every tool call', async () => {
    lines.length = 0;
    await walk({ host: 'alpha,beta', path: '/srv', maxDepth: 1 });
    const audits = lines.filter((l) => l.audit === 'tool');
    assert.equal(audits.length, 1);
    const { caller, ...line } = audits[0] as { caller: string } & Record<string, unknown>;
    assert.match(caller, /^grpc:/);
    assert.deepEqual(
      { ...line, ms: undefined, bytes: undefined, time: undefined, pid: undefined, hostname: undefined },
      {
        level: 30,
        msg: 'audit',
        audit: 'tool',
        tool: 'walk',
        selector: 'alpha,beta',
        path: '/srv',
        hostsOk: ['alpha'],
        hostsFailed: [{ host: 'beta', status: 'not_found' }],
        rows: 2,
        outcome: 'ok',
        ms: undefined,
        bytes: undefined,
        time: undefined,
        pid: undefined,
        hostname: undefined,
      },
    );
  });
});
