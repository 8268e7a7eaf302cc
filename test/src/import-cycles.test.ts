// No workspace's modules import each other in a circle, and no import goes up a layer
// (scripts/check-cycles.mjs, also run by `npm run lint`): the repository passes, and a planted
// cycle, an upward import between gateway folders or between packages, and a folder with no
// layer are each caught and named.
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

  /** A repository of two packages laid out as this one: @fleetls/gateway (layered) and @fleetls/hosts. */
  function layered(files: Record<string, string>): string {
    const root = mkdtempSync(join(dir, 'layers-'));
    writeFileSync(join(root, 'package.json'), JSON.stringify({ workspaces: ['packages/*'] }));
    const all: Record<string, string> = {
      'packages/gateway/package.json': JSON.stringify({ name: '@fleetls/gateway' }),
      'packages/hosts/package.json': JSON.stringify({ name: '@fleetls/hosts' }),
      'packages/hosts/src/index.ts': 'export const hosts = 1;\n',
      'packages/gateway/src/faces/face.ts': "import { tool } from '../tools/tool.js';\nexport const face = tool;\n",
      'packages/gateway/src/tools/tool.ts': "import { hosts } from '@fleetls/hosts';\nexport const tool = hosts;\n",
      ...files,
    };
    for (const [path, text] of Object.entries(all)) {
      mkdirSync(join(root, path, '..'), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    return root;
  }

  it('passes imports that go down the layers', () => {
    const r = check(layered({}));
    assert.equal(r.stderr, '');
    assert.equal(r.status, 0);
  });

  it('names an import from tools/ up to faces/ and fails', () => {
    const r = check(
      layered({
        'packages/gateway/src/tools/present.ts': "import { face } from '../faces/face.js';\nexport const p = face;\n",
      }),
    );
    assert.equal(r.status, 1);
    assert.match(
      r.stderr,
      /^upward import: packages\/gateway\/src\/tools\/present\.ts -> packages\/gateway\/src\/faces\/face\.ts \(tools may not import faces\)$/m,
    );
  });

  it('names a package importing one above it and fails, but not its tests', () => {
    const r = check(
      layered({
        'packages/hosts/src/up.ts':
          "import type { face } from '@fleetls/gateway/faces';\nexport type Up = typeof face;\n",
        'packages/hosts/src/up.test.ts': "import '@fleetls/gateway';\n",
      }),
    );
    assert.equal(r.status, 1);
    assert.match(
      r.stderr,
      /^upward import: packages\/hosts\/src\/up\.ts -> @fleetls\/gateway \(@fleetls\/hosts may not import @fleetls\/gateway\)$/m,
    );
    assert.doesNotMatch(r.stderr, /up\.test\.ts/);
  });

  it("reads a package's web/ (the dashboard) too", () => {
    const r = check(
      layered({
        'packages/gateway/web/a-view.ts': "import type { B } from './b-panel.js';\nexport type A = B[];\n",
        'packages/gateway/web/b-panel.ts': "import type { A } from './a-view.js';\nexport type B = { a: A };\n",
      }),
    );
    assert.equal(r.status, 1);
    assert.match(
      r.stderr,
      /^import cycle among: packages\/gateway\/web\/a-view\.ts, packages\/gateway\/web\/b-panel\.ts$/m,
    );
  });

  it('refuses a gateway folder that has no layer', () => {
    const r = check(layered({ 'packages/gateway/src/extras/x.ts': 'export const x = 1;\n' }));
    assert.equal(r.status, 1);
    assert.match(
      r.stderr,
      /^no layer: packages\/gateway\/src\/extras\/x\.ts \(extras has no layer in packages\/gateway\/src: name it in LAYERS\)$/m,
    );
  });
});
