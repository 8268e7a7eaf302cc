// Done when: no tool call, at the largest arguments its schema allows, returns a result a
// client with a 25,000-token cap (Claude Code) refuses. Claude Code gives its model JSON of
// structuredContent when a result has it (earlier versions the content array), never both, so
// each of the two must fit the cap on its own; the byte budget holds them together
// (answer-budget.test). Token-dense names (digits, short names, CJK, astral-plane and
// combining characters) make 64 KiB 30,000+ o200k tokens; the token budget must cut first,
// and say so with a cursor. The sweep runs at a 64 KiB byte budget (the default was that), so
// the tokens, not the bytes, are what cuts: the token budget holds whatever the byte budget is.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { pino } from 'pino';
import { dir, FakeFleet, type FakeNode, file, link, MemoryBackend } from '../testing/fake-fleet.js';
import { sweepTools } from '../testing/tool-sweep.js';

/** Claude Code refuses a tool result over this many tokens (MAX_MCP_OUTPUT_TOKENS). */
const CLIENT_TOKEN_CAP = 25_000;
/** o200k stands in for the client's tokenizer: a tenth of the cap is kept for the difference. */
const WITH_MARGIN = CLIENT_TOKEN_CAP * 0.9;

const NAMES: Record<string, (i: number) => string> = {
  digits: (i) => String(i),
  short: (i) => i.toString(36),
  cjk: (i) => String.fromCodePoint(0x4e00 + ((i * 7919) % 20000)),
  astral: (i) => String.fromCodePoint(0x20000 + ((i * 13) % 40000)),
  tibetan: (i) => String.fromCodePoint(0xf40 + (i % 40), 0xf71 + (i % 10)) + (i % 7),
  combining: (i) => `a${String.fromCodePoint(0x300 + (i % 100), 0x300 + ((i * 7) % 100))}`,
};

/** 12 × 30 × 30 files (and a link per leaf directory), every name from `name`, sizes of 10 digits. */
function denseTree(name: (i: number) => string): FakeNode {
  let n = 0;
  const top: Record<string, FakeNode> = {};
  for (let a = 0; a < 12; a++) {
    const mid: Record<string, FakeNode> = {};
    for (let b = 0; b < 30; b++) {
      const leaf: Record<string, FakeNode> = {};
      for (let c = 0; c < 30; c++) leaf[name(n++)] = file((n * 2654435761) % 1e10, 1_700_000_000 + n);
      leaf[name(n++)] = link('..');
      mid[name(n++)] = dir(leaf, { du: 1000 + b });
    }
    top[name(n++)] = dir(mid, { du: 100_000 + a });
  }
  return dir({ r: dir(top) });
}

/** The tools whose answers page with next_cursor. */
const PAGED = new Set(['list_directory', 'list_files', 'diff_directory', 'disk_usage']);

for (const [kind, name] of Object.entries(NAMES)) {
  test(`every tool at its largest arguments over ${kind} names stays under ${CLIENT_TOKEN_CAP} o200k tokens`, async () => {
    const fleet = new FakeFleet({ h1: new MemoryBackend(denseTree(name)), h2: new MemoryBackend(denseTree(name)) });
    const seen: string[] = [];
    const options = { maxAnswerBytes: 64 * 1024 };
    await sweepTools({ fleet, logger: pino({ level: 'silent' }), options }, true, ({ tool, host, call, result: r }) => {
      assert.equal(r.isError, undefined, `${call}: ${JSON.stringify(r.content).slice(0, 300)}`);
      const tokens = Math.max(countTokens(JSON.stringify(r.content)), countTokens(JSON.stringify(r.structuredContent)));
      assert.ok(tokens <= WITH_MARGIN, `${call}: ${tokens} o200k tokens`);
      const s = r.structuredContent as { truncated?: boolean; next_cursor?: string };
      const text = (r.content[0] as { text: string }).text;
      // An answer cut by its budget says so, and a listing that pages gives the cursor to go on.
      if (/answer cut at \d+ tokens/.test(text)) {
        assert.equal(s.truncated, true, call);
        if (PAGED.has(tool)) assert.equal(typeof s.next_cursor, 'string', call);
      }
      seen.push(`${tool}@${host}:${tokens}`);
    });
    // The tree was dense enough for the token budget to cut: some answer is near it.
    assert.ok(
      seen.some((s) => Number(s.split(':')[1]) > 15_000),
      seen.join(' '),
    );
  });
}
