// A peer gateway holds a shard to its own grants and limits, whatever the calling gateway
// says: a principal it does not know, a tool, path or host outside that principal's grant, or
// a request past its ceilings is refused (the caller then asks those hosts itself).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { resolveWalkRequest } from '@fleetls/core';
import { pino } from 'pino';
import type { FleetHost } from '../../fleet/fleet-types.js';
import type { ShardRequest, ShardTask } from '../../fleet/peers/protocol.js';
import { checkShardRequest } from '../../fleet/peers/serve-shards.js';
import { parseGrants } from '../../grants/file.js';
import { Grants } from '../../grants/source.js';
import { authorizeShard } from './serve-peers.js';

const sha = (t: string) => `sha256:${createHash('sha256').update(t).digest('hex')}`;
const grants = Grants.of(
  parseGrants(
    `
principals:
  web-team:
    tokens: ["${sha('tok-a')}"]
    tools: [list_files]
    hosts: ["web-*"]
    paths: [/var/log]
`,
    'g.yaml',
  ),
  pino({ level: 'silent' }),
);
const host = (name: string): FleetHost => ({
  name,
  via: 'agent+nats',
  address: `nats:${name}`,
  labels: {},
  groups: [],
  sshFallback: false,
});
const ranked = (path: string): ShardTask => ({
  kind: 'ranked-walk',
  req: resolveWalkRequest({ path, shape: 'ranked', order: 'size', direction: 'descending', topN: 10 }),
  cap: 10,
});

describe("a shard from a peer gateway, held to this gateway's grants", () => {
  const web = [host('web-1'), host('web-2')];
  const call = { principal: 'web-team', tool: 'list_files' };

  it('runs what the principal may do here', () => {
    authorizeShard(grants, call, ranked('/var/log'), web);
    // No grants file: every caller may do everything here, as its own callers.
    authorizeShard(undefined, { principal: 'anyone', tool: 'diff_directory' }, ranked('/'), [host('db-1')]);
    // `local`, not named in the file: everything, as this gateway's own stdio caller.
    authorizeShard(grants, { principal: 'local', tool: 'list_files' }, ranked('/'), [host('db-1')]);
  });

  it('refuses a principal, tool, path or host the grants do not give', () => {
    const refused = (f: () => void, why: RegExp) =>
      assert.throws(f, (e: Error & { code?: string }) => e.code === 'permission_denied' && why.test(e.message));
    refused(
      () => authorizeShard(grants, { ...call, principal: 'mallory' }, ranked('/var/log'), web),
      /'mallory' is not/,
    );
    refused(() => authorizeShard(grants, { ...call, tool: 'diff_directory' }, ranked('/var/log'), web), /may not call/);
    refused(() => authorizeShard(grants, call, ranked('/etc'), web), /outside web-team's roots/);
    refused(() => authorizeShard(grants, call, ranked('/var/log'), [...web, host('db-1')]), /may not reach host db-1/);
  });
});

describe('a shard request, checked as this gateway checks a walk of its own', () => {
  const good: ShardRequest = {
    v: 1,
    job: '0123456789abcdef',
    from: 'fedcba9876543210',
    caller: { principal: 'local', tool: 'list_files' },
    task: ranked('/var/log'),
    hosts: ['web-1'],
    leftMs: 30_000,
    hostMs: 20_000,
    concurrency: 32,
  };

  it('passes a request within the ceilings', () => {
    assert.equal(checkShardRequest(good, good.job).task.req.path, '/var/log');
  });

  it('refuses one past them, or malformed, naming the field', () => {
    const bad = (r: unknown, why: RegExp) =>
      assert.throws(
        () => checkShardRequest(r as ShardRequest, good.job),
        (e: Error & { code?: string }) => e.code === 'invalid_argument' && why.test(e.message),
      );
    bad({ ...good, v: 2 }, /v must be 1/);
    bad({ ...good, job: 'aaaaaaaaaaaaaaaa' }, /job differs/);
    bad({ ...good, from: 'x.>' }, /from must be a gateway id/);
    bad({ ...good, hosts: [] }, /hosts must list/);
    bad({ ...good, task: { ...good.task, kind: 'diff' } }, /task.kind "diff"/);
    bad({ ...good, task: { ...good.task, cap: 1_000_000 } }, /task.cap must be 1..100000/);
    bad({ ...good, task: { ...good.task, req: { ...good.task.req, topN: 5_000_000 } } }, /top_n/);
    bad({ ...good, task: { ...good.task, req: { ...good.task.req, path: 'relative' } } }, /path/);
    bad({ ...good, task: { ...good.task, req: { ...good.task.req, shape: 'tree' } } }, /ranked walk/);
  });
});
