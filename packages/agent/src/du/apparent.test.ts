// A sizing pass counts each entry it reads, as a walk's source does (onEntry): the agent's
// progress (WalkResponse.entries_seen) moves while a du walk sizes a big tree, on the native
// module's packed reader (where it is loaded) as through node:fs.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { duApparent } from './apparent.js';

describe('duApparent', () => {
  const root = mkdtempSync(join(tmpdir(), 'fleetls-du-seen-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('hears every entry it reads, below every level', () => {
    for (const d of ['a', 'a/deep', 'b']) mkdirSync(join(root, d), { recursive: true });
    for (let i = 0; i < 300; i++) writeFileSync(join(root, ['a', 'a/deep', 'b'][i % 3] as string, `f${i}`), 'x');
    let heard = 0;
    const size = duApparent(Buffer.from(root), Date.now() + 60_000, { onEntry: () => heard++ });
    assert.equal(size.partial, false);
    // a, b in the root; deep and 100 files in a; 100 in a/deep; 100 in b.
    assert.equal(heard, 2 + 1 + 300);
  });
});
