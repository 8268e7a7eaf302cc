// The scan store's spill files under a state directory other users may write in (issue 35, F4):
// a symlink or a directory planted there is refused, never followed; the store's own
// directory is 0700, its files 0600, and all of it goes on close.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { LocalScanStore } from './store.js';

const base = mkdtempSync(join(tmpdir(), 'fleetls-store-'));
after(() => rmSync(base, { recursive: true, force: true }));

let n = 0;
/** A fresh state directory (not made yet) and a directory an intruder owns beside it. */
function place(): { state: string; evil: string } {
  const at = join(base, String(n++));
  mkdirSync(at);
  const evil = join(at, 'evil');
  mkdirSync(evil);
  return { state: join(at, 'state'), evil };
}

const ROWS = { rows: [{ name: 'a' }, { name: 'b' }] };

describe('LocalScanStore spills', () => {
  it('keeps rows past its bound in 0600 files under a 0700 directory of its own, removed on close', async () => {
    const { state } = place();
    const store = new LocalScanStore(1, state);
    store.put('s1', 0, ROWS, 2);
    assert.equal(store.spilled, 1);
    assert.deepEqual(await store.get('s1', 0), ROWS);
    const [own] = readdirSync(join(state, 'scans'));
    assert.equal(statSync(join(state, 'scans')).mode & 0o777, 0o700);
    assert.equal(statSync(join(state, 'scans', own)).mode & 0o777, 0o700);
    const [file] = readdirSync(join(state, 'scans', own));
    assert.equal(statSync(join(state, 'scans', own, file)).mode & 0o777, 0o600);
    store.close();
    assert.deepEqual(readdirSync(join(state, 'scans')), []);
  });

  it('refuses a scans/ planted as a symlink, and writes nothing where it points', async () => {
    const { state, evil } = place();
    mkdirSync(state, { mode: 0o700 });
    symlinkSync(evil, join(state, 'scans'));
    const store = new LocalScanStore(1, state);
    store.put('s1', 0, ROWS, 2);
    await assert.rejects(store.get('s1', 0), /scans: is a symlink or not a directory; refusing to spill there/);
    assert.deepEqual(readdirSync(evil), [], 'nothing made through the symlink');
    store.close();
  });

  it('refuses a state directory that is a symlink', async () => {
    const { state, evil } = place();
    symlinkSync(evil, state);
    const store = new LocalScanStore(1, state);
    store.put('s1', 0, ROWS, 2);
    await assert.rejects(store.get('s1', 0), /is a symlink or not a directory/);
    assert.deepEqual(readdirSync(evil), []);
  });

  it('refuses a scans/ that others may write in (another user could plant files there)', async () => {
    const { state } = place();
    mkdirSync(join(state, 'scans'), { recursive: true, mode: 0o700 });
    chmodSync(join(state, 'scans'), 0o777);
    const store = new LocalScanStore(1, state);
    store.put('s1', 0, ROWS, 2);
    await assert.rejects(store.get('s1', 0), /scans is writable by others \(mode 777\)/);
    assert.deepEqual(readdirSync(join(state, 'scans')), []);
  });

  it('never reads a victim through a spill file swapped for a symlink', async () => {
    const { state, evil } = place();
    const victim = join(evil, 'victim');
    mkdirSync(victim);
    const secret = join(victim, 'secret.json');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(secret, JSON.stringify({ rows: [{ name: 'SECRET' }] }));
    const store = new LocalScanStore(1, state);
    store.put('s1', 0, ROWS, 2);
    assert.deepEqual(await store.get('s1', 0), ROWS);
    // As root could (the directory is 0700): the file swapped for a link to the victim.
    const [own] = readdirSync(join(state, 'scans'));
    const file = join(state, 'scans', own, 's1-0.json');
    rmSync(file);
    symlinkSync(secret, file);
    await assert.rejects(store.get('s1', 0), /ELOOP/);
    assert.match(readFileSync(secret, 'utf8'), /SECRET/);
    store.close();
  });
});

describe('LocalScanStore without a state directory', () => {
  it('keeps no more than its memory bound: a result past it is refused, released rows make room', async () => {
    const store = new LocalScanStore(100, undefined);
    assert.equal(store.put('s', 0, 'first', 60), true);
    assert.equal(store.put('s', 1, 'second', 60), false);
    assert.equal(store.memoryRows, 60);
    assert.equal(await store.get('s', 1), undefined);
    store.take('s', 0);
    assert.equal(store.put('s', 1, 'second', 60), true);
    assert.equal(await store.get('s', 1), 'second');
    store.close();
  });
});
