// list_directory pages: a tree cut at the byte budget goes on from next_cursor, host by
// host, and the pages together are the unpaged listing, each row exactly once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FleetError, type Row, type WalkRequest, type WalkSummary } from '@fleetls/core';
import { DeadBackend, dir, FakeFleet, type FakeNode, file, MemoryBackend } from '../../testing/fake-fleet.js';
import { fullTreeLines, listDirectory, listFiles, toolContext } from '../../testing/tool-calls.js';
import { type ListDirectoryAnswer, treeEntryPaths } from './index.js';

function files(prefix: string, n: number): Record<string, FakeNode> {
  const out: Record<string, FakeNode> = {};
  for (let i = 0; i < n; i++) out[`${prefix}${String(i).padStart(2, '0')}`] = file(i);
  return out;
}

/** Caps (nested [WARNING]s), denied directories (a DIR row then a DENIED row), nesting. */
function tree(seed: string): FakeNode {
  return dir({
    r: dir({
      a: dir({ ...files(`${seed}a`, 7), inner: dir(files('i', 6)), locked: dir({}, { denied: true }) }),
      b: dir({ deep: dir({ deeper: dir(files('z', 3)) }), ...files('b', 2) }),
      locked: dir({ hidden: file(1) }, { denied: true }),
      ...files(`${seed}top`, 5),
    }),
  });
}

/** An agent from before resume points: it ignores `after` and walks from the start. */
class OldAgent extends MemoryBackend {
  override walk(req: WalkRequest, signal: AbortSignal): AsyncGenerator<Row[], WalkSummary, void> {
    const { after: _a, afterRow: _r, ...rest } = req;
    return super.walk(rest, signal);
  }
}

function fleet(): { fleet: FakeFleet; backends: Record<string, MemoryBackend> } {
  const backends = {
    web1: new MemoryBackend(tree('w')),
    web2: new OldAgent(tree('x')),
    web3: new MemoryBackend(tree('y')),
  };
  return { fleet: new FakeFleet({ ...backends, gone: new DeadBackend() }), backends };
}

const ARGS = { host: 'web1,gone,web2,web3', path: '/r', depth: 3, max_items_per_dir: 4 };
const CUT = /^\[WARNING\] answer cut at \d+ bytes after \d+ lines; to continue, call list_directory again/;
/** The line naming the hosts a later page lists. */
const PENDING = /^\[PENDING\] [\w, ]+: continued on the next page: call again with next_cursor$/;

async function allPages(maxAnswerBytes: number): Promise<ListDirectoryAnswer[]> {
  const f = fleet().fleet;
  const pages: ListDirectoryAnswer[] = [];
  const texts: string[] = [];
  let cursor: string | undefined;
  for (let n = 0; n < 500; n++) {
    const r = await listDirectory(toolContext(f, { maxAnswerBytes }), { ...ARGS, ...(cursor ? { cursor } : {}) });
    pages.push(r.structured);
    texts.push(r.text);
    cursor = r.structured.next_cursor;
    const last = r.text.split('\n').at(-1) ?? '';
    assert.equal(CUT.test(last), cursor !== undefined, `page ${n}: the text says how to go on exactly when cut`);
    if (cursor === undefined) return pages.map((p, i) => ({ ...p, text: texts[i] }) as ListDirectoryAnswer);
    assert.ok(last.endsWith(`cursor: ${cursor}`));
  }
  throw new Error('paging did not end');
}

test('list_directory pages: any budget reproduces the unpaged rows exactly once, in host order', async () => {
  const whole = await listDirectory(toolContext(fleet().fleet), ARGS);
  assert.equal(whole.structured.next_cursor, undefined);
  const lines = whole.text.split('\n');
  for (const want of [
    'web1: [DIR] a/locked',
    'web1: [DENIED] a/locked — permission denied',
    'web2: [DENIED] locked — permission denied',
    'web3: [WARNING] a: 5 items hidden (showing first 4 of 9 total)',
    'web3: [WARNING] a/inner: 2 items hidden (showing first 4 of 6 total)',
  ]) {
    assert.ok(lines.includes(want), `${want} in\n${whole.text}`);
  }
  assert.ok(lines.some((l) => l.startsWith('gone: [ERROR] unreachable')));
  for (const budget of [1000, 1100, 1500, 2500]) {
    const pages = await allPages(budget);
    assert.ok(pages.length > 1, `${pages.length} pages at ${budget} bytes`);
    // Each page's rows name their directories in its own `dirs`: compared by whole path.
    const paths = (p: ListDirectoryAnswer) => treeEntryPaths(p).map(({ dir: _, ...e }) => e);
    const entries = pages.flatMap(paths);
    assert.deepEqual(entries, paths(whole.structured), `entries at ${budget} bytes`);
    // A page's first line shows its whole path where the unpaged text gave a sibling's name.
    const text = pages.flatMap((p) =>
      (p as unknown as { text: string }).text.split('\n').filter((l) => !CUT.test(l) && !PENDING.test(l)),
    );
    assert.deepEqual(fullTreeLines(text), fullTreeLines(lines), `text at ${budget} bytes`);
    // Every host of the call has a status row on the first page: those a later page lists are pending.
    assert.deepEqual(
      pages[0].hosts.map((h) => h.host),
      ['web1', 'gone', 'web2', 'web3'],
    );
    assert.equal(pages[0].hosts.at(-1)?.status, 'pending', `at ${budget} bytes`);
    assert.match((pages[0] as unknown as { text: string }).text, /\n\[PENDING\] [\w, ]*web3: continued/);
    // Each page names every host from the one it goes on with to the last: none missing.
    const all = ['web1', 'gone', 'web2', 'web3'];
    for (const p of pages) {
      const names = p.hosts.map((h) => h.host);
      assert.deepEqual(names, all.slice(all.indexOf(names[0])), `at ${budget} bytes`);
    }
  }
});

/** A host whose walk stops at its entry limit after 3 rows (as one stops at its deadline). */
class StopsEarly extends MemoryBackend {
  override walk(req: WalkRequest, signal: AbortSignal): AsyncGenerator<Row[], WalkSummary, void> {
    return super.walk({ ...req, maxEntries: 3 }, signal);
  }
}

test('list_directory pages: the hosts after one that stopped early are pending on its page, listed on the next', async () => {
  const f = new FakeFleet({
    early: new StopsEarly(tree('e')),
    gone: new DeadBackend(),
    web3: new MemoryBackend(tree('y')),
  });
  const first = await listDirectory(toolContext(f), { ...ARGS, host: 'early,gone,web3' });
  assert.deepEqual(
    first.structured.hosts.map((h) => `${h.host}:${h.status}`),
    ['early:ok', 'gone:pending', 'web3:pending'],
  );
  const lines = first.text.split('\n');
  assert.ok(
    lines.includes('[PENDING] gone, web3: continued on the next page: call again with next_cursor'),
    first.text,
  );
  assert.match(lines.at(-1) ?? '', /^\[WARNING\] to continue, call list_directory again/);
  // Following the cursors, early goes on 3 rows a page; then gone and web3 get their own statuses.
  let cursor = first.structured.next_cursor;
  const seen: string[] = [];
  for (let n = 0; cursor && n < 50; n++) {
    const page = await listDirectory(toolContext(f), { ...ARGS, host: 'early,gone,web3', cursor });
    assert.equal(page.structured.hosts.at(-1)?.host, 'web3', 'the last host has its status row on every page');
    seen.push(...page.structured.hosts.map((h) => `${h.host}:${h.status}`));
    cursor = page.structured.next_cursor;
  }
  assert.equal(cursor, undefined);
  assert.deepEqual(seen.slice(-2), ['gone:unreachable', 'web3:ok']);
});

test('list_directory pages: a page resumes its first host after the last row shown, not from the start', async () => {
  const { fleet: f, backends } = fleet();
  const first = await listDirectory(toolContext(f, { maxAnswerBytes: 900 }), { ...ARGS, host: 'web1' });
  const cursor = first.structured.next_cursor;
  assert.ok(cursor);
  const last = treeEntryPaths(first.structured).at(-1);
  await listDirectory(toolContext(f, { maxAnswerBytes: 900 }), { ...ARGS, host: 'web1', cursor });
  const req = backends.web1.requests.at(-1);
  assert.equal(req?.after?.toString(), last?.path);
  assert.equal(req?.afterRow, last?.type === 'warning' ? 'warning' : last?.error ? 'error' : 'entry');
});

test('list_directory pages: one host keeps DesktopCommander lines on every page', async () => {
  const f = fleet().fleet;
  let cursor: string | undefined;
  const rows: string[] = [];
  do {
    const r = await listDirectory(toolContext(f, { maxAnswerBytes: 650 }), {
      ...ARGS,
      host: 'web3',
      ...(cursor ? { cursor } : {}),
    });
    cursor = r.structured.next_cursor;
    rows.push(...r.text.split('\n').filter((l) => !CUT.test(l)));
  } while (cursor);
  const whole = await listDirectory(toolContext(f), { ...ARGS, host: 'web3' });
  assert.deepEqual(fullTreeLines(rows), fullTreeLines(whole.text.split('\n')));
  assert.ok(
    rows.every((l) => /^( {2})?\[(FILE|DIR|DENIED|WARNING)\] /.test(l)),
    rows.join('\n'),
  );
});

test('list_directory pages: a cursor of another query, of list_files, or garbage is refused naming cursor', async () => {
  const f = fleet().fleet;
  const r = await listDirectory(toolContext(f, { maxAnswerBytes: 900 }), ARGS);
  const cursor = r.structured.next_cursor;
  assert.ok(cursor);
  const refused = (e: unknown) =>
    e instanceof FleetError &&
    e.code === 'invalid_argument' &&
    /^cursor is not valid for this query: pass next_cursor unchanged, with host, path, depth and max_items_per_dir/.test(
      e.message,
    );
  const o = { maxAnswerBytes: 900 };
  await assert.rejects(listDirectory(toolContext(f, o), { ...ARGS, depth: 2, cursor }), refused);
  await assert.rejects(listDirectory(toolContext(f, o), { ...ARGS, host: 'web1', cursor }), refused);
  await assert.rejects(listDirectory(toolContext(f, o), { ...ARGS, cursor: 'garbage' }), refused);
  await assert.rejects(listDirectory(toolContext(f, o), { ...ARGS, cursor: `${cursor}x` }), refused);
  // A made-up cursor of this query naming a host past the four selected (its index: bytes 2-5).
  const past = Buffer.from(cursor, 'base64url');
  past.writeUInt32BE(4, 2);
  await assert.rejects(listDirectory(toolContext(f, o), { ...ARGS, cursor: past.toString('base64url') }), refused);
  const files = await listFiles(toolContext(f, { maxAnswerBytes: 900 }), { host: 'web1', path: '/r', max_depth: 3 });
  const filesCursor = files.structured.next_cursor;
  assert.ok(filesCursor);
  await assert.rejects(listDirectory(toolContext(f, o), { ...ARGS, cursor: filesCursor }), refused);
  await assert.rejects(listDirectory(toolContext(f, o), { ...ARGS, cursor: 42 }), /cursor/);
});

test('list_directory pages: an agent that ignores the resume point repeats no row and says where it stopped', async () => {
  const f = new FakeFleet({ old: new OldAgent(dir({ r: dir(files('f', 99)) })) });
  const big: Record<string, FakeNode> = {};
  for (let i = 0; i < 2600; i++) big[`n${String(i).padStart(4, '0')}`] = file(i);
  const g = new FakeFleet({ old: new OldAgent(dir({ r: dir(big) })) });
  const whole = (
    await listDirectory(toolContext(g, { maxAnswerBytes: 1 << 20, maxAnswerTokens: 1 << 20 }), {
      host: 'old',
      path: '/r',
    })
  ).text.split('\n');
  // One page per budget; the old agent walks from the start each time and stops at 2000 rows.
  const seen: string[] = [];
  let cursor: string | undefined;
  let last = '';
  for (let n = 0; n < 50; n++) {
    const r = await listDirectory(toolContext(g, { maxAnswerBytes: 16000 }), {
      host: 'old',
      path: '/r',
      ...(cursor ? { cursor } : {}),
    });
    const lines = r.text.split('\n').filter((l) => !CUT.test(l));
    last = lines.at(-1) ?? '';
    seen.push(...lines.filter((l) => l.startsWith('[FILE]')));
    cursor = r.structured.next_cursor;
    if (!cursor) break;
  }
  assert.equal(cursor, undefined);
  assert.equal(new Set(seen).size, seen.length, 'no row twice');
  assert.deepEqual(seen, whole.slice(0, seen.length));
  assert.equal(seen.length, 2000);
  assert.match(last, /^\[WARNING\] listing stopped at .*entry limit reached/);
  // A small tree it walks whole: paging works through it as through a current agent.
  const small = await allPagesOf(f, { host: 'old', path: '/r' }, 600);
  assert.deepEqual(small, (await listDirectory(toolContext(f), { host: 'old', path: '/r' })).text.split('\n'));
});

async function allPagesOf(f: FakeFleet, args: Record<string, unknown>, maxAnswerBytes: number): Promise<string[]> {
  const out: string[] = [];
  let cursor: string | undefined;
  for (let n = 0; n < 200; n++) {
    const r = await listDirectory(toolContext(f, { maxAnswerBytes }), { ...args, ...(cursor ? { cursor } : {}) });
    out.push(...r.text.split('\n').filter((l) => !CUT.test(l)));
    cursor = r.structured.next_cursor;
    if (!cursor) return out;
  }
  throw new Error('paging did not end');
}
