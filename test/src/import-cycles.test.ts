// No workspace's modules import each other in a circle (scripts/check-cycles.mjs, also run
// by `npm run lint`): the repository passes, and a planted cycle is caught and named.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { REPO_ROOT } from './helpers/agent-process.js';

const CHECK = join(REPO_ROOT, 'scripts/check-cycles.mjs');

function check(root: string) {
  return spawnSync(process.execPath, [CHECK, root], { encoding: 'utf8' });
}

describe('import cycles', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fleetls-cycles-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('finds none in the repository', () => {
    const r = check(REPO_ROOT);
    assert.equal(r.stderr, '');
    assert.equal(r.status, 0);
  });

  it('names the files of a type-only cycle and fails', () => {
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ workspaces: ['pkgs/*'] }));
    const src = join(dir, 'pkgs/a/src');
    mkdirSync(src, { recursive: true });
    writeFileSync(join(src, 'one.ts'), "import type { Two } from './two.js';\nexport type One = Two[];\n");
    writeFileSync(join(src, 'two.ts'), "import {\n  type One,\n} from './one.js';\nexport type Two = { one: One };\n");
    writeFileSync(join(src, 'three.ts'), "import type { One } from './one.js';\nexport type Three = One;\n");
    const r = check(dir);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /^import cycle among: pkgs\/a\/src\/one\.ts, pkgs\/a\/src\/two\.ts$/m);
    assert.doesNotMatch(r.stderr, /three\.ts/);
  });
});
