// The agent serves its contract, health and reflection without protobufjs (issue 39's idle
// RSS: decoding descriptors with it was most of the idle heap above the runtime's, and one
// reflection call loaded it for good): a real agent, every module it imports recorded by a
// resolve hook, answers Walk, Stat, health and reflection as before with none of
// proto-loader, protobufjs, grpc-health-check or @grpc/reflection imported.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeTree } from '@fleetls/testkit';
import * as grpc from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';
import { type AgentProcess, agentClient, startAgent, walkAll } from '../helpers/agent-process.js';
import { reflect } from '../helpers/reflection-client.js';

const LOADER = /\/(@grpc\/proto-loader|protobufjs|grpc-health-check|@grpc\/reflection)\//;

type HealthClient = grpc.Client & {
  Check(req: { service: string }, cb: (e: grpc.ServiceError | null, r?: { status: string }) => void): void;
  Watch(req: { service: string }): grpc.ClientReadableStream<{ status: string }>;
  List(
    req: object,
    cb: (e: grpc.ServiceError | null, r?: { statuses: Record<string, { status: string }> }) => void,
  ): void;
};

describe('agent start without protobufjs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fleetls-lean-'));
  const resolved = join(dir, 'resolved.log');
  let agent: AgentProcess;
  let health: HealthClient;
  const imported = () =>
    readFileSync(resolved, 'utf8')
      .split('\n')
      .filter((url) => LOADER.test(url));

  before(async () => {
    makeTree(join(dir, 'data'), { 'a.txt': 'a', 'sub/b.txt': 'bb' });
    // Every specifier the agent's imports resolve to, written by a module resolve hook.
    writeFileSync(
      join(dir, 'hooks.mjs'),
      `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  appendFileSync(process.env.FLEETLS_RESOLVED_LOG, r.url + '\\n');
  return r;
}
`,
    );
    writeFileSync(
      join(dir, 'register.mjs'),
      `import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\n`,
    );
    writeFileSync(resolved, '');
    agent = await startAgent({
      allow: [join(dir, 'data')],
      node: [process.execPath, '--import', join(dir, 'register.mjs')],
      env: { FLEETLS_RESOLVED_LOG: resolved },
    });
    const Health = grpc.makeGenericClientConstructor(healthService, 'Health');
    health = new Health(agent.address, grpc.credentials.createInsecure()) as unknown as HealthClient;
  });

  after(async () => {
    health?.close();
    await agent?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers Walk, Stat and grpc.health.v1 as before, with no protobufjs imported', async () => {
    const client = agentClient(agent.address);
    try {
      const { rows, summary } = await walkAll(client, { path: join(dir, 'data'), maxDepth: 4 });
      assert.equal(rows.filter((r) => r.kind === 'entry').length, 3);
      assert.equal(summary?.entriesSent, 3);
      const stat = await new Promise<{ entry: { size: number }; agentVersion: string }>((resolve, reject) =>
        client.Stat({ path: join(dir, 'data/sub/b.txt') }, (e, r) => (e ? reject(e) : resolve(r as never))),
      );
      assert.equal(Number(stat.entry.size), 2);
      assert.ok(stat.agentVersion.length > 0);
      // A request field of the wrong kind is still the agent's refusal, named by its field.
      await assert.rejects(walkAll(client, { path: 'relative' }), (e: grpc.ServiceError) => {
        assert.equal(e.code, grpc.status.INVALID_ARGUMENT);
        assert.match(e.details, /path/);
        return true;
      });
    } finally {
      client.close();
    }

    const check = (service: string) =>
      new Promise<{ status?: string; code?: number; details?: string }>((resolve) =>
        health.Check({ service }, (e, r) => resolve(e ? { code: e.code, details: e.details } : { status: r?.status })),
      );
    assert.deepEqual(await check(''), { status: 'SERVING' });
    assert.deepEqual(await check('fleetls.v1.Agent'), { status: 'SERVING' });
    assert.deepEqual(await check('nope'), {
      code: grpc.status.NOT_FOUND,
      details: 'Health status unknown for service nope',
    });
    const watch = health.Watch({ service: 'nope' });
    // Its end: the CANCELLED of the cancel below.
    watch.on('error', () => {});
    const first = await new Promise<{ status: string }>((resolve) => watch.once('data', resolve));
    watch.cancel();
    assert.deepEqual(first, { status: 'SERVICE_UNKNOWN' });
    const list = await new Promise<Record<string, { status: string }> | undefined>((resolve, reject) =>
      health.List({}, (e, r) => (e ? reject(e) : resolve(r?.statuses))),
    );
    assert.deepEqual(list, { '': { status: 'SERVING' }, 'fleetls.v1.Agent': { status: 'SERVING' } });

    assert.deepEqual(imported(), []);
  });

  it('answers reflection, still with no protobufjs imported', async () => {
    const reflected = await reflect(agent.address, new grpc.Metadata(), 'fleetls.v1.Agent');
    assert.ok(reflected.services.includes('fleetls.v1.Agent'), reflected.services.join());
    assert.ok(!reflected.services.includes('fleetls.v1.Fleet'), reflected.services.join());
    // A stub built from the reflected descriptors only, as grpcurl's, calls the agent.
    const stub = new reflected.Service(agent.address, grpc.credentials.createInsecure()) as unknown as grpc.Client & {
      Stat(req: object, cb: (e: grpc.ServiceError | null, r?: { entry: { size: number } }) => void): void;
    };
    try {
      const stat = await new Promise<{ entry: { size: number } } | undefined>((resolve, reject) =>
        stub.Stat({ path: join(dir, 'data/a.txt') }, (e, r) => (e ? reject(e) : resolve(r))),
      );
      assert.equal(Number(stat?.entry.size), 1);
    } finally {
      stub.close();
    }
    assert.deepEqual(imported(), []);
    // The hook does see what the agent imports: the empty lists are not a hook that saw nothing.
    assert.ok(
      readFileSync(resolved, 'utf8').includes('/@grpc/grpc-js/'),
      'the resolve hook recorded no import of grpc-js',
    );
  });
});
