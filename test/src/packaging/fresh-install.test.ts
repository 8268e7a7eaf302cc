// What a new user meets before the first command (issue 40, item 12): `npm ci` on the
// Node 20 the README calls enough prints no engine warning (no locked package, dev tools
// included, asks for a newer Node) and no other, and the README's prerequisites name every
// tool `npm run package` checks for.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { REPO_ROOT } from '../helpers/agent-process.js';

interface Lock {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
}

/**
 * Whether a node engines range admits some Node 20 release: an alternative of `||` whose
 * lower bound (`>=N`, `^N`, `~N`, `N.x`, `N.*`, `N`) has a major of at most 20. Enough for the
 * forms npm packages use; a `<` bound below 20 is not looked at (none in the lockfile).
 */
function admitsNode20(range: string): boolean {
  return range.split('||').some((alt) => {
    const m = /^\s*(?:>=?|\^|~)?\s*v?(\d+)/.exec(alt);
    return m !== null && Number(m[1]) <= 20;
  });
}

describe('a fresh install on Node 20', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fleetls-fresh-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('locks no package whose engines refuse Node 20', () => {
    const root = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
    assert.equal(root.engines.node, '>=20');
    const lock = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as Lock;
    const refusing = Object.entries(lock.packages)
      .map(([where, p]) => [where, p.version, Array.isArray(p.engines) ? undefined : p.engines?.node] as const)
      .filter(([, , node]) => node !== undefined && !admitsNode20(node))
      .map(([where, version, node]) => `${where}@${version} (node ${node})`);
    assert.deepEqual(refusing, []);
  });

  it('npm ci, as the README runs it, prints no EBADENGINE, nor any warning, on this Node', () => {
    // The manifests and the lockfile of a fresh clone: all that npm ci reads to decide.
    const manifests = execFileSync('git', ['ls-files', 'package.json', '*/package.json', 'package-lock.json'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    })
      .trim()
      .split('\n');
    for (const file of manifests) {
      cpSync(join(REPO_ROOT, file), join(dir, file));
    }
    assert.ok(manifests.includes('proto/package.json'), manifests.join(' '));
    const r = spawnSync('npm', ['ci', '--dry-run', '--no-audit', '--no-fund'], { cwd: dir, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /EBADENGINE/);
    // Nor any other warning: @bufbuild/buf's install script (it swaps its JS launcher for the
    // platform binary) is declined in allowScripts, as esbuild's; buf runs without it.
    assert.doesNotMatch(r.stderr, /npm warn/);
  });

  it("the README's prerequisites name every tool npm run package needs, and its Debian package", () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const prerequisites = readme.split('## Two commands')[1]?.split('\n## ')[0] ?? '';
    const runtime = readFileSync(join(REPO_ROOT, 'scripts/package/runtime.mjs'), 'utf8');
    const tools = [...runtime.matchAll(/\['([\w-]+)', '([\w-]+)'\]/g)].map((m) => [m[1], m[2]] as const);
    assert.ok(
      tools.some(([tool]) => tool === 'rpmbuild'),
      JSON.stringify(tools),
    );
    for (const [tool, pkg] of tools) {
      if (tool === 'npm') continue; // comes with the Node the README already asks for
      assert.ok(prerequisites.includes(`\`${tool}\``), `${tool} not named`);
      assert.ok(prerequisites.includes(pkg), `${pkg} (for ${tool}) not named`);
    }
  });
});
