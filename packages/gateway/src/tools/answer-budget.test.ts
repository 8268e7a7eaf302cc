// Done when: no tool call, with any valid arguments, returns a whole result above the
// configured budget. Every tool of the registry, over a real MCP client, at the largest
// arguments its schema allows on a 10,000+ entry tree and at its defaults on one directory
// of 50,000 entries, on one host and on two.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_MAX_ANSWER_BYTES } from '@fleetls/core';
import { pino } from 'pino';
import { dir, FakeFleet, type FakeNode, file, link, MemoryBackend } from '../testing/fake-fleet.js';
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
    const bytes = Buffer.byteLength(JSON.stringify(result));
    assert.ok(bytes <= DEFAULT_MAX_ANSWER_BYTES, `${call}: ${bytes} bytes`);
    assert.equal(result.isError, undefined, `${call}: ${JSON.stringify(result.content)}`);
    seen.push(`${tool}@${host}:${bytes}`);
  });
  return seen;
}

test('every tool at its largest arguments on a 12,000-entry tree stays within 64 KiB whole', async () => {
  const seen = await sweep(bigTree, true);
  // The listings were big enough to be cut: some answer is within 10% of the budget.
  assert.ok(
    seen.some((s) => Number(s.split(':')[1]) > DEFAULT_MAX_ANSWER_BYTES * 0.9),
    seen.join(' '),
  );
});

test('every tool at its defaults on one 50,000-entry directory stays within 64 KiB whole', async () => {
  const seen = await sweep(flatDirectory, false);
  assert.ok(
    seen.some((s) => Number(s.split(':')[1]) > DEFAULT_MAX_ANSWER_BYTES * 0.9),
    seen.join(' '),
  );
});
