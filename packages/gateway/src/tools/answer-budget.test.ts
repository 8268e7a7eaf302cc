// Done when: no tool call, with any valid arguments, returns a whole result above the
// configured budget: 48,000 characters by default (Claude Code writes a result over 50,000 to a
// file and gives its model a path instead), text and structuredContent together. Every tool of the registry, over a real MCP client, at the largest
// arguments its schema allows on a 10,000+ entry tree and at its defaults on one directory
// of 50,000 entries, on one host and on two.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_MAX_ANSWER_BYTES } from '@fleetls/core';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { pino } from 'pino';
import { dir, FakeFleet, type FakeNode, file, link, MemoryBackend } from '../testing/fake-fleet.js';
import { connectMcp } from '../testing/mcp-client.js';
import { treeEntryPaths } from '../testing/tool-calls.js';
import { sweepTools } from '../testing/tool-sweep.js';

/** 12,000+ entries: 12 directories of 40 subdirectories of 25 files (long names), links among them. */
function bigTree(): FakeNode {
  const top: Record<string, FakeNode> = {};
  for (let a = 0; a < 12; a++) {
    const mid: Record<string, FakeNode> = {};
    for (let b = 0; b < 40; b++) {
      const leaf: Record<string, FakeNode> = {};
      for (let c = 0; c < 25; c++) leaf[`file-with-a-longer-name-${a}-${b}-${c}.data`] = file(a * 1000 + b * 25 + c);
      leaf.up = link('..');
      mid[`subdirectory-${String(b).padStart(2, '0')}`] = dir(leaf, { du: 1000 + b });
    }
    top[`directory-${String(a).padStart(2, '0')}`] = dir(mid, { du: 100_000 + a });
  }
  return dir({ r: dir(top) });
}

function flatDirectory(): FakeNode {
  const many: Record<string, FakeNode> = {};
  for (let i = 0; i < 50_000; i++) many[`entry-${String(i).padStart(5, '0')}.log`] = file(i);
  return dir({ r: dir(many) });
}

/** Every tool on three hosts of `tree`, at its largest arguments or its defaults: the size of each answer. */
async function sweep(tree: () => FakeNode, largest: boolean): Promise<string[]> {
  const fleet = new FakeFleet({
    h1: new MemoryBackend(tree()),
    h2: new MemoryBackend(tree()),
    h3: new MemoryBackend(tree()),
  });
  const seen: string[] = [];
  // The token budget (answer-tokens.test) out of the way: this sweep holds the byte budget.
  const deps = { fleet, logger: pino({ level: 'silent' }), options: { maxAnswerTokens: 1 << 20 } };
  await sweepTools(deps, largest, ({ tool, host, call, result }) => {
    const whole = JSON.stringify({ content: result.content, structuredContent: result.structuredContent });
    const bytes = Buffer.byteLength(JSON.stringify(result));
    assert.ok(bytes <= DEFAULT_MAX_ANSWER_BYTES, `${call}: ${bytes} bytes`);
    assert.ok(whole.length <= 48_000, `${call}: ${whole.length} characters`);
    // Any cut is reported: an answer that says it was truncated says what was.
    const s = result.structuredContent as { truncated?: boolean; truncations?: unknown[] } | undefined;
    if (s?.truncated === true) assert.ok((s.truncations ?? []).length > 0, `${call}: truncated, no truncations`);
    assert.equal(result.isError, undefined, `${call}: ${JSON.stringify(result.content)}`);
    seen.push(`${tool}@${host}:${bytes}`);
  });
  return seen;
}

test('every tool at its largest arguments on a 12,000-entry tree stays within 48,000 characters whole', async () => {
  const seen = await sweep(bigTree, true);
  // The listings were big enough to be cut: some answer is within 10% of the budget.
  assert.ok(
    seen.some((s) => Number(s.split(':')[1]) > DEFAULT_MAX_ANSWER_BYTES * 0.9),
    seen.join(' '),
  );
});

test('every tool at its defaults on one 50,000-entry directory stays within 48,000 characters whole', async () => {
  const seen = await sweep(flatDirectory, false);
  assert.ok(
    seen.some((s) => Number(s.split(':')[1]) > DEFAULT_MAX_ANSWER_BYTES * 0.9),
    seen.join(' '),
  );
});

/** An /etc-like tree: 40 directories of 30 files, names as long as a system's usually are. */
function etcLike(): FakeNode {
  const top: Record<string, FakeNode> = {};
  for (let a = 0; a < 40; a++) {
    const files: Record<string, FakeNode> = {};
    for (let b = 0; b < 30; b++) files[`settings-${String(b).padStart(2, '0')}.conf`] = file(1000 + a * 30 + b);
    top[`service-${String(a).padStart(2, '0')}.d`] = dir(files);
  }
  return dir({ r: dir(top) });
}

test('a tree page at the default budget holds at least 400 rows of an /etc-like tree', async () => {
  const fleet = new FakeFleet({ h1: new MemoryBackend(etcLike()) });
  const { client, close } = await connectMcp({ fleet, logger: pino({ level: 'silent' }) }, 'rows');
  try {
    const r = (await client.callTool({
      name: 'list_directory',
      arguments: { host: 'h1', path: '/r', depth: 2 },
    })) as CallToolResult;
    const page = r.structuredContent as { entries: unknown[]; next_cursor?: string };
    // 1,240 rows: the page is cut at the budget, and holds 400 of them at least.
    assert.ok(page.next_cursor, 'the page was cut');
    assert.ok(page.entries.length >= 400, `${page.entries.length} rows`);
  } finally {
    await close();
  }
});

/** A 40-level chain of directories, 80 files on each level: 40 before its subdirectory by name, 40 after. */
function deepChain(): FakeNode {
  let node: FakeNode = dir({});
  for (let level = 40; level >= 1; level--) {
    const here: Record<string, FakeNode> = { [`level-${level + 1}`]: node };
    for (let i = 0; i < 40; i++) {
      here[`a-settings-${String(i).padStart(2, '0')}.conf`] = file(1000 + level * 80 + i);
      here[`z-journal-${String(i).padStart(2, '0')}.log`] = file(50_000 + level * 80 + i);
    }
    node = dir(here);
  }
  return dir({ r: dir({ deep: dir({ 'level-1': node }) }) });
}

test('a tree page at the default budget holds at least 400 rows of a 40-level chain, its paths whole again', async () => {
  // Issue 37: the full path on every row (text and structuredContent) held 330 rows of the
  // bench's 10k tree. A row now costs its name: in the text a sibling of the line above shows
  // its name indented, in the rows its directory is an index in `dirs`.
  const fleet = new FakeFleet({ h1: new MemoryBackend(deepChain()) });
  const { client, close } = await connectMcp({ fleet, logger: pino({ level: 'silent' }) }, 'rows');
  try {
    const r = (await client.callTool({
      name: 'list_directory',
      arguments: { host: 'h1', path: '/r', depth: 10, max_items_per_dir: 10_000 },
    })) as CallToolResult;
    const page = r.structuredContent as {
      dirs: string[];
      entries: { name: string; dir?: number; type?: string }[];
      next_cursor?: string;
    };
    const whole = JSON.stringify({ content: r.content, structuredContent: r.structuredContent });
    assert.ok(whole.length <= 48_000, `${whole.length} characters`);
    // 650 rows (depth 10 reaches deep/level-1/…/level-8's files): the page is cut at the budget,
    // and holds 400 of them at least, the deepest level's among them.
    assert.ok(page.next_cursor, 'the page was cut');
    assert.ok(page.entries.length >= 400, `${page.entries.length} rows`);
    const paths = treeEntryPaths(page).map((e) => e.path);
    const chain = Array.from({ length: 8 }, (_, i) => `level-${i + 1}`).join('/');
    assert.ok(paths.includes(`deep/${chain}/z-journal-39.log`), paths.slice(-5).join('\n'));
    assert.equal(new Set(paths).size, paths.length, 'every path once');
  } finally {
    await close();
  }
});
