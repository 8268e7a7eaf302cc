// The README states the answer budget in several places; each must be the one the code applies
// (the budget moved from 256 KiB of text to 64 KiB of the whole result with issue 8, and a
// statement of the old one survived the change; to 48,000 bytes with issue 37).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { DEFAULT_MAX_ANSWER_BYTES } from '@fleetls/core';
import { REPO_ROOT } from '../helpers/agent-process.js';

// "bounded (64 KiB whole)", "is at most 48,000 bytes by default", "≤ 64 KiB whole", and the old
// "bounded (about 256 KiB of text by default)"; a past budget ("it was 256 KiB") is history.
// Characters are not bytes: "at most 8,000 characters" of an error is another limit.
const BUDGET_STATEMENT = /(?:bounded|at most|≤)\s*\(?(?:about\s+)?(\d[\d,]*) (KiB|bytes)/g;

/** The budgets stated, in bytes. */
function statedBudgets(readme: string): number[] {
  const text = readme.replace(/\s+/g, ' ');
  return [...text.matchAll(BUDGET_STATEMENT)].map((m) => Number(m[1].replace(/,/g, '')) * (m[2] === 'KiB' ? 1024 : 1));
}

describe('README', () => {
  it('states the answer budget the code applies, wherever it states one', () => {
    const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
    const stated = statedBudgets(readme);
    assert.ok(stated.length >= 2, `expected the budget stated in the README, found ${stated}`);
    assert.deepEqual(new Set(stated), new Set([DEFAULT_MAX_ANSWER_BYTES]));
  });

  it('finds a statement of the old budget', () => {
    assert.deepEqual(statedBudgets('Answers are bounded (about 256 KiB of text by default).'), [256 * 1024]);
    assert.deepEqual(statedBudgets('it was 256 KiB of text'), []);
    assert.deepEqual(statedBudgets('the whole result is at most 48,000 bytes by default'), [48_000]);
  });
});
