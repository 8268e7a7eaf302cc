// A request path's resolution by descriptor off the main thread (confined-path.ts): what it
// answers (realpath's answer inside the roots, node:fs's errno codes, OutsideRoots for a way
// out whether the outside exists or not), the same without the native module, no descriptor
// left open, and how many tasks it takes libuv's pool: one for the names up to a symlink,
// where node:fs took one per name.
import assert from 'node:assert/strict';
import { createHook } from 'node:async_hooks';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { OutsideRoots } from '@fleetls/core';
import { resolveConfinedAsync } from './confined-path.js';
import { readsDents } from './fsat.js';

describe('resolveConfinedAsync', () => {
  let tmp: string;
  let root: string;
  const at = (...names: string[]) => path.join(root, ...names);
  const resolve = async (p: string, followFinal = true) =>
    (await resolveConfinedAsync(Buffer.from(p), [Buffer.from(root)], followFinal)).toString();
  const codeOf = async (p: string) =>
    resolve(p).then(
      (real) => `resolved to ${real}`,
      (err: NodeJS.ErrnoException) => (err instanceof OutsideRoots ? 'OutsideRoots' : String(err.code)),
    );

  before(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-confined-')));
    root = path.join(tmp, 'root');
    fs.mkdirSync(at('a/b/c/d'), { recursive: true });
    fs.mkdirSync(path.join(tmp, 'outside'));
    fs.writeFileSync(at('a/file'), 'x');
    fs.symlinkSync('a/b', at('rel'));
    fs.symlinkSync(at('a'), at('abs'));
    fs.symlinkSync('../../a/b/c', at('a/b/up'));
    fs.symlinkSync('rel/up/d', at('chain'));
    fs.symlinkSync('file', at('a/to-file'));
    fs.symlinkSync('loop', at('loop'));
    fs.symlinkSync('../outside', at('out'));
    fs.symlinkSync('../nowhere', at('out-missing'));
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  /** Paths inside the root, each resolved as realpath resolves it. */
  const inside = ['a/b/c/d', 'rel', 'rel/c', 'abs/b', 'a/b/up', 'a/b/up/d', 'chain', 'a/to-file', 'a/file', 'abs/../a'];

  it('answers what realpath answers for a path inside the roots, through symlinks', async () => {
    for (const p of ['', ...inside]) assert.equal(await resolve(at(p)), fs.realpathSync(at(p)), p);
    // The last name unfollowed: beside its resolved parent.
    assert.equal(await resolve(at('rel/up'), false), at('a/b/up'));
    assert.equal(await resolve(at('abs/nothing'), false), at('a/nothing'));
  });

  it("fails with node:fs's errno codes, and refuses a way out whether the outside exists or not", async () => {
    assert.equal(await codeOf(at('a/missing/d')), 'ENOENT');
    assert.equal(await codeOf(at('a/missing')), 'ENOENT');
    assert.equal(await codeOf(at('a/file/d')), 'ENOTDIR');
    assert.equal(await codeOf(at('a/to-file/d')), 'ENOTDIR');
    assert.equal(await codeOf(at('loop')), 'ELOOP');
    assert.equal(await codeOf(at('a', 'n'.repeat(300), 'd')), 'ENAMETOOLONG');
    assert.equal(await codeOf(at('out')), 'OutsideRoots');
    assert.equal(await codeOf(at('out-missing')), 'OutsideRoots');
    assert.equal(await codeOf(at('out/x')), 'OutsideRoots');
    assert.equal(await codeOf(path.join(tmp, 'outside')), 'OutsideRoots');
  });

  it('leaves no descriptor open, whatever it answered', async () => {
    const open = () => fs.readdirSync('/proc/self/fd').length;
    await resolve('/');
    const before = open();
    for (const p of [...inside, 'a/missing/d', 'a/file/d', 'loop', 'out/x']) await codeOf(at(p));
    assert.equal(open(), before);
  });

  it('looks the names up to a symlink in one task on the pool, where node:fs took one per name', async () => {
    assert.ok(readsDents(), 'a build has the native module');
    const tasks: string[] = [];
    const hook = createHook({
      init(_id, type) {
        if (type.startsWith('FSREQ') || type === 'fsat.openDirs') tasks.push(type);
      },
    });
    const count = async (p: string) => {
      tasks.length = 0;
      hook.enable();
      try {
        await codeOf(p);
      } finally {
        hook.disable();
      }
      return tasks.join(' ');
    };
    const depth = at('a/b/c/d').split('/').length - 1;
    assert.ok(depth >= 6, `${depth} names deep`);
    assert.equal(await count(at('a/b/c/d')), 'fsat.openDirs');
    // One more task after each symlink: rel -> a/b, then up -> ../../a/b/c, then d.
    assert.equal(await count(at('rel/up/d')), 'fsat.openDirs fsat.openDirs fsat.openDirs');
    assert.equal(await count(at('a/missing/d')), 'fsat.openDirs');
    // A path longer than one task takes (64 names) goes on in the next.
    const deep = at('deep', ...Array.from({ length: 70 }, () => 'n'));
    fs.mkdirSync(deep, { recursive: true });
    assert.equal(await count(deep), 'fsat.openDirs fsat.openDirs');
    assert.equal(await resolve(deep), deep);
  });

  it('answers the same without the native module (FLEETLS_NATIVE=0), a node:fs call a name', () => {
    const paths = [...inside, 'a/missing/d', 'a/file/d', 'loop', 'out/x'].map((p) => at(p));
    const script = `
      const { resolveConfinedAsync } = await import(${JSON.stringify(new URL('./confined-path.js', import.meta.url).href)});
      const { readsDents } = await import(${JSON.stringify(new URL('./fsat.js', import.meta.url).href)});
      const out = [String(readsDents())];
      for (const p of ${JSON.stringify(paths)}) {
        out.push(await resolveConfinedAsync(Buffer.from(p), [Buffer.from(${JSON.stringify(root)})], true).then(
          (real) => 'resolved to ' + real.toString(),
          (err) => (err.name === 'OutsideRoots' ? 'OutsideRoots' : String(err.code)),
        ));
      }
      process.stdout.write(JSON.stringify(out));
    `;
    const without = JSON.parse(
      execFileSync(process.execPath, ['--input-type=module', '-e', script], {
        env: { ...process.env, FLEETLS_NATIVE: '0' },
        encoding: 'utf8',
      }),
    ) as string[];
    assert.equal(without.shift(), 'false');
    return Promise.all(paths.map(codeOf)).then((withModule) => assert.deepEqual(without, withModule));
  });
});
