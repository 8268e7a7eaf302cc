// diff_directory, disk_usage and list_files' find-like filters over in-memory fleets: the
// answers, their bounds and cursors, bad input naming the argument, and a dead host as a
// status row.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FleetError, type Row, type WalkRequest, type WalkSummary } from '@fleetls/core';
import { DeadBackend, dir, FakeFleet, file, link, MemoryBackend } from '../testing/fake-fleet.js';
import { diffDirectory, diskUsage, listFiles, toolContext } from '../testing/tool-calls.js';
import { answerBytes } from './shared/answer-size.js';

const nginx = (over: Record<string, ReturnType<typeof file>> = {}, extra = {}) =>
  dir({
    etc: dir({
      nginx: dir({
        'nginx.conf': file(1234),
        'conf.d': dir({ 'default.conf': file(300), ...over }),
        'sites-enabled': dir({ site: link('../sites-available/site'), ...extra }),
      }),
    }),
  });

function webFleet(n: number, odd: Record<number, ReturnType<typeof nginx>> = {}, dead = false) {
  const hosts: Record<string, MemoryBackend | DeadBackend> = {};
  for (let i = 1; i <= n; i++) hosts[`web-${i}`] = new MemoryBackend(odd[i] ?? nginx());
  if (dead) hosts['web-dead'] = new DeadBackend();
  return new FakeFleet(hosts);
}

async function rejects(p: Promise<unknown>, re: RegExp): Promise<void> {
  await assert.rejects(
    p,
    (e: unknown) => e instanceof FleetError && e.code === 'invalid_argument' && re.test(e.message),
  );
}

test('diff_directory: identical hosts are one group and one line', async () => {
  const r = await diffDirectory(toolContext(webFleet(5)), { host: 'all', path: '/etc/nginx' });
  assert.deepEqual(r.text.split('\n'), [
    'diff /etc/nginx on 5 hosts: all identical (depth 2; compared: type, size, mode, owner)',
    'A  5 hosts (baseline): web-1, web-2, web-3, web-4, web-5',
  ]);
  assert.equal(r.structured.total, 0);
  assert.equal(r.structured.groups[0].count, 5);
});

test('diff_directory: the odd host, what differs, and a dead host as a status row', async () => {
  const odd = nginx({ 'default.conf': file(310), 'old.conf': file(50) });
  const r = await diffDirectory(toolContext(webFleet(4, { 3: odd }, true)), { host: 'all', path: '/etc/nginx' });
  assert.deepEqual(r.text.split('\n'), [
    'diff /etc/nginx on 4 of 5 hosts: 2 groups, 2 differences (depth 2; compared: type, size, mode, owner)',
    'A  3 hosts (baseline): web-1, web-2, web-4',
    'B  1 host: web-3',
    '',
    'conf.d/default.conf',
    '  A: size 300',
    '  B: size 310',
    'conf.d/old.conf',
    '  A: absent',
    '  B: file size 50 mode 0644 owner 1000:1000',
    'web-dead: [ERROR] unreachable — connect ECONNREFUSED 127.0.0.1:9',
  ]);
  const s = r.structured;
  assert.deepEqual(
    s.hosts.map((h) => [h.host, h.status]),
    [
      ['web-1', 'ok'],
      ['web-2', 'ok'],
      ['web-3', 'ok'],
      ['web-4', 'ok'],
      ['web-dead', 'unreachable'],
    ],
  );
  assert.deepEqual(s.differences[1], {
    path: 'conf.d/old.conf',
    values: [
      { hosts: ['web-1', 'web-2', 'web-4'], present: false },
      { hosts: ['web-3'], present: true, type: 'file', size: 50, mode: '0644', uid: 1000, gid: 1000 },
    ],
  });
});

test('diff_directory: a byte budget cuts between differences and the cursor goes on from there', async () => {
  const extra: Record<string, ReturnType<typeof file>> = {};
  for (let i = 0; i < 200; i++) extra[`extra-${String(i).padStart(3, '0')}.conf`] = file(i);
  const f = webFleet(3, { 2: nginx(extra) });
  const opts = { maxAnswerBytes: 4096 };
  const seen: string[] = [];
  let cursor: string | undefined;
  let first: string | undefined;
  let pages = 0;
  do {
    const r = await diffDirectory(toolContext(f, opts), { host: 'all', path: '/etc/nginx', cursor });
    assert.ok(answerBytes({ text: r.text, structured: r.structured }) <= 4096);
    seen.push(...r.structured.differences.map((d) => d.path));
    cursor = r.structured.next_cursor;
    first ??= cursor;
    if (cursor) assert.match(r.text, /answer cut at 4096 bytes/);
    pages++;
  } while (cursor && pages < 100);
  assert.ok(pages > 1);
  assert.equal(seen.length, 200);
  assert.equal(new Set(seen).size, 200);
  await rejects(diffDirectory(toolContext(f), { host: 'all', path: '/etc', cursor: first }), /cursor is not valid/);
});

test('diff_directory: a capped directory is compared only where both sides listed', async () => {
  const many: Record<string, ReturnType<typeof file>> = {};
  for (let i = 0; i < 30; i++) many[`f${String(i).padStart(2, '0')}`] = file(1);
  const r = await diffDirectory(toolContext(webFleet(2, { 1: nginx(many), 2: nginx({ ...many, f29: file(2) }) })), {
    host: 'all',
    path: '/etc/nginx',
    max_items_per_dir: 10,
  });
  // f29 differs, but neither host listed it within the cap: no difference claimed.
  assert.equal(r.structured.total, 0);
  assert.equal(r.structured.truncations.length, 2);
  assert.match(r.text, /only what both sides listed is compared/);
});

/** A host whose walk stream breaks after its first batch of rows (an agent that died mid-walk). */
class BreaksMidWalk extends MemoryBackend {
  override async *walk(req: WalkRequest, signal: AbortSignal): AsyncGenerator<Row[], WalkSummary, void> {
    const first = await super.walk(req, signal).next();
    if (!first.done) yield first.value;
    throw new Error('stream reset by peer');
  }
}

test('diff_directory: a host whose walk broke partway claims nothing absent that it did not list', async () => {
  const f = new FakeFleet({
    'web-1': new MemoryBackend(nginx()),
    'web-2': new BreaksMidWalk(nginx(), { batch: 2 }),
    'web-3': new MemoryBackend(nginx()),
  });
  const r = await diffDirectory(toolContext(f), { host: 'all', path: '/etc/nginx' });
  // It listed conf.d and its file, then broke: nginx.conf and sites-enabled were claimed absent there.
  assert.deepEqual(r.structured.differences, []);
  assert.deepEqual(
    r.structured.groups.map((g) => g.hosts),
    [['web-1', 'web-2', 'web-3']],
  );
  assert.match(r.structured.hosts[1].message ?? '', /partial answer: the walk broke after 2 rows/);
});

test('diff_directory: bad input names the argument and what it accepts', async () => {
  const c = toolContext(webFleet(1));
  await rejects(
    diffDirectory(c, { host: 'all', path: '/etc', compare: ['colour'] }),
    /compare: "colour" is not an attribute; use any of type, size, mode, owner, mtime/,
  );
  await rejects(diffDirectory(c, { host: 'all', path: '/etc', compare: [] }), /compare must name at least one/);
  await rejects(diffDirectory(c, { host: 'all', path: '/etc', depth: 11 }), /depth must be an integer from 1 to 10/);
  await rejects(diffDirectory(c, { host: 'all', path: '/etc', colour: 1 }), /colour: unknown argument/);
});

const varTree = (scale: number) =>
  dir({
    var: dir({
      log: dir({ journal: dir({}, { du: 6000 * scale }), apt: dir({}, { du: 100 }) }, { du: 7000 * scale }),
      cache: dir({}, { du: 500 }),
    }),
  });

test('disk_usage: largest directories merged across hosts, bars proportional, dead host a status row', async () => {
  const f = new FakeFleet({
    a: new MemoryBackend(varTree(1)),
    b: new MemoryBackend(varTree(2)),
    gone: new DeadBackend(),
  });
  const r = await diskUsage(toolContext(f), { host: 'all', path: '/var', depth: 2, top_n: 4 });
  assert.deepEqual(r.text.split('\n'), [
    'Largest directories under /var on 2 hosts (depth 2, du -b --one-file-system): 4 of 8',
    '',
    '   SIZE                            HOST  PATH',
    ' 14 KiB  ########################  b     /var/log',
    ' 12 KiB  #####################     b     /var/log/journal',
    '6.8 KiB  ############              a     /var/log',
    '5.9 KiB  ##########                a     /var/log/journal',
    '',
    // du's root line per host: /var's own 4096 bytes, log and cache (the top_n does not cut it).
    'total  11 KiB (11596 bytes)  a  /var',
    'total  18 KiB (18596 bytes)  b  /var',
    'gone: [ERROR] unreachable — connect ECONNREFUSED 127.0.0.1:9',
  ]);
  assert.deepEqual(r.structured.rows[0], { host: 'b', path: 'log', size: 14000 });
  assert.deepEqual(r.structured.path_totals, [
    { host: 'a', size: 11596 },
    { host: 'b', size: 18596 },
  ]);
  assert.equal(r.structured.found, 8);
  await rejects(
    diskUsage(toolContext(f), { host: 'all', path: '/var', depth: 9 }),
    /depth must be an integer from 1 to 3/,
  );
  await rejects(
    diskUsage(toolContext(f), { host: 'all', path: '/var', depth: 0 }),
    /depth must be an integer from 1 to 3/,
  );
});

const filesTree = dir({
  srv: dir({
    'big.log': file(5 << 20, 1_700_000_100),
    'small.log': file(10, 1_700_000_100),
    'old.log': file(5 << 20, 1_600_000_000),
    sub: dir({ 'deep.log': file(2 << 20, 1_700_000_200) }),
  }),
});

test('list_files: find-like filters, on every host, in the cursor, and bad values named', async () => {
  const f = new FakeFleet({
    a: new MemoryBackend(filesTree),
    b: new MemoryBackend(filesTree),
    gone: new DeadBackend(),
  });
  const r = await listFiles(toolContext(f), {
    host: 'all',
    path: '/srv',
    max_depth: 2,
    min_size: '1M',
    modified_after: '2023-11-14T22:00:00Z',
    name: '*.log',
  });
  assert.deepEqual(
    r.structured.items.map((i) => `${i.host}:${i.path}`),
    ['a:big.log', 'b:big.log', 'a:sub/deep.log', 'b:sub/deep.log'],
  );
  assert.deepEqual(
    r.structured.hosts.map((h) => h.status),
    ['ok', 'ok', 'unreachable'],
  );
  const backend = f.backend('a') as MemoryBackend;
  assert.deepEqual(backend.requests.at(-1)?.filter?.minSize, 1 << 20);
  // A cursor holds its filters: the same cursor with other filters is refused.
  const page = await listFiles(toolContext(f), { host: 'a', path: '/srv', max_depth: 2, min_size: 1, limit: 1 });
  assert.ok(page.structured.next_cursor);
  await rejects(
    listFiles(toolContext(f), {
      host: 'a',
      path: '/srv',
      max_depth: 2,
      min_size: 2,
      limit: 1,
      cursor: page.structured.next_cursor,
    }),
    /cursor is not valid/,
  );
  const c = toolContext(f);
  await rejects(listFiles(c, { host: 'a', path: '/srv', min_size: 'huge' }), /^min_size: "huge" is not a size/);
  await rejects(
    listFiles(c, { host: 'a', path: '/srv', modified_after: 'yesterday-ish' }),
    /^modified_after: "yesterday-ish" is not a time/,
  );
  await rejects(listFiles(c, { host: 'a', path: '/srv', perm: 'rwx' }), /^perm: "rwx" is not a mode/);
  await rejects(
    listFiles(c, { host: 'a', path: '/srv', owner: 'a b' }),
    /^owner: "a b" is not a user name or a numeric uid/,
  );
  await rejects(listFiles(c, { host: 'a', path: '/srv', min_size: true }), /min_size must be a string or a number/);
});
