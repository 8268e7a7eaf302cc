import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { Fleet, ListDirectoryRequestSchema } from '@fleetls/proto/fleet_pb';
import * as grpc from '@grpc/grpc-js';
import { pino } from 'pino';
import { DEFAULT_GATEWAY_OPTIONS } from '../../fleet/options.js';
import { dir, FakeFleet, file, MemoryBackend } from '../../testing/fake-fleet.js';
import { type FleetGrpcTest, startFleetGrpcTest } from '../../testing/fleet-grpc.js';
import { TOOLS } from '../../tools/registry.js';
import { runTool } from '../../tools/run-tool.js';
import { fieldName, requestArgs } from './args.js';
import { startFleetGrpcServer } from './server.js';
import { WALK_INPUT } from './walk.js';

const logger = pino({ level: 'silent' });
const TOKEN = 'fleet-api-unit-token';

function fakeFleet() {
  return new FakeFleet({
    alpha: new MemoryBackend(dir({ srv: dir({ 'a.log': file(3), sub: dir({ 'b.log': file(5) }) }) })),
  });
}

/** The contract's methods, by name, as the servers serve them (the generated protobuf-es code). */
const METHODS = new Map(Fleet.methods.map((m) => [m.name, m]));

describe('the Fleet contract is a face of the tool registry', () => {
  it('has one RPC per tool', () => {
    for (const t of TOOLS)
      assert.ok(t.fleet && METHODS.has(t.fleet.method), `${t.name}: fleetls.v1.Fleet/${t.fleet?.method}`);
    const methods = TOOLS.map((t) => t.fleet?.method);
    assert.deepEqual([...METHODS.keys()].filter((m) => m !== 'Walk').sort(), methods.sort());
  });

  it("names each request field as the tool's argument (or one it retired, refused when set), and no other", () => {
    const requests: [string, Record<string, unknown>][] = [
      ...TOOLS.map((t): [string, Record<string, unknown>] => [
        t.fleet?.method ?? t.name,
        { ...t.input, ...t.fleet?.retired },
      ]),
      ['Walk', WALK_INPUT],
    ];
    for (const [method, input] of requests) {
      const type = METHODS.get(method)!.input;
      const fields = type.fields.map((f) => f.localName).sort();
      assert.deepEqual(fields, Object.keys(input).map(fieldName).sort(), `${method}(${type.typeName})`);
    }
  });

  it('leaves empty fields out, so the tool applies its defaults; a set optional zero is passed on', () => {
    const tool = TOOLS.find((t) => t.fleet?.method === 'ListDirectory')!;
    const request = create(ListDirectoryRequestSchema, { host: 'a', path: '/srv', maxItemsPerDir: 7, cursor: '' });
    assert.deepEqual(requestArgs(tool.input, ListDirectoryRequestSchema, request), {
      host: 'a',
      path: '/srv',
      max_items_per_dir: 7,
    });
    request.depth = 0;
    assert.deepEqual(requestArgs(tool.input, ListDirectoryRequestSchema, request), {
      host: 'a',
      path: '/srv',
      depth: 0,
      max_items_per_dir: 7,
    });
  });
});

describe('Fleet gRPC server', () => {
  let fleetApi: FleetGrpcTest;
  const fleet = fakeFleet();

  before(async () => {
    fleetApi = await startFleetGrpcTest({ fleet, options: DEFAULT_GATEWAY_OPTIONS, logger, token: TOKEN });
  });
  after(() => fleetApi?.stop());

  const call = <T>(method: 'ListDirectory' | 'ListHosts' | 'Stat', req: object, meta?: grpc.Metadata): Promise<T> =>
    fleetApi.call<T>(method, req, meta);

  it('answers a tool RPC with the domain rows, paths as bytes', async () => {
    const res = await call<{ rows: { host: string; row: { entry?: { path: Buffer } } }[]; hosts: unknown[] }>(
      'ListDirectory',
      { host: 'alpha', path: '/srv' },
    );
    assert.deepEqual(
      res.rows.map((r) => `${r.host}:${r.row.entry?.path.toString()}`),
      ['alpha:a.log', 'alpha:sub', 'alpha:sub/b.log'],
    );
    assert.ok(Buffer.isBuffer(res.rows[0].row.entry?.path));
  });

  it('refuses bad arguments with INVALID_ARGUMENT and the tool’s own message', async () => {
    const ctx = { fleet, options: DEFAULT_GATEWAY_OPTIONS, signal: new AbortController().signal };
    const tool = TOOLS.find((t) => t.name === 'list_directory')!;
    for (const [req, args] of [
      [
        { host: 'alpha', path: '/srv', depth: 11 },
        { host: 'alpha', path: '/srv', depth: 11 },
      ],
      [{ path: '/srv' }, { path: '/srv' }],
      [
        { host: 'nope', path: '/srv' },
        { host: 'nope', path: '/srv' },
      ],
    ] as const) {
      const mcpMessage = await runTool(tool, args, ctx).then(
        () => assert.fail('the tool accepted bad arguments'),
        (e: Error) => e.message,
      );
      await assert.rejects(call('ListDirectory', req), (e: grpc.ServiceError) => {
        assert.equal(e.code, grpc.status.INVALID_ARGUMENT);
        assert.equal(e.details, mcpMessage);
        return true;
      });
    }
  });

  it('refuses a Stat that sets the retired cursor, saying why; answers it whole without', async () => {
    // Issue 37: stat takes no cursor. fleet.proto keeps field 3 for clients of the earlier
    // contract: setting it is an error, not a cursor silently ignored.
    await assert.rejects(call('Stat', { host: 'alpha', path: '/srv', cursor: 'AAAA' }), (e: grpc.ServiceError) => {
      assert.equal(e.code, grpc.status.INVALID_ARGUMENT);
      assert.match(e.details, /^cursor: stat takes no cursor: one lstat per host answers whole/);
      return true;
    });
    const res = await call<{ results: { host: string }[]; nextCursor: string }>('Stat', {
      host: 'alpha',
      path: '/srv',
    });
    assert.deepEqual(
      res.results.map((r) => r.host),
      ['alpha'],
    );
    assert.equal(res.nextCursor, '');
  });

  it('refuses a call without the token with UNAUTHENTICATED, but health answers', async () => {
    await assert.rejects(call('ListHosts', {}, new grpc.Metadata()), (e: grpc.ServiceError) => {
      assert.equal(e.code, grpc.status.UNAUTHENTICATED);
      return true;
    });
    const res = await call<{ hosts: { host: string }[] }>('ListHosts', {});
    assert.deepEqual(
      res.hosts.map((h) => h.host),
      ['alpha'],
      'an empty host selector lists every host, as list_hosts does',
    );
  });

  it('refuses a non-loopback bind without authentication', async () => {
    await assert.rejects(
      startFleetGrpcServer({ fleet, options: DEFAULT_GATEWAY_OPTIONS, logger, host: '0.0.0.0', port: 0 }),
      /refusing to serve the Fleet API on 0\.0\.0\.0 without authentication/,
    );
  });
});
