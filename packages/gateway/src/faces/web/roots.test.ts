// Where a dashboard view opens: the roots each host names in its refusal of `/`, and the path
// every answering host allows.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { commonPath, rootsOfAnswer } from './roots.js';

describe('dashboard roots', () => {
  it('reads the roots an agent names when it refuses /', () => {
    assert.deepEqual(rootsOfAnswer('ok', undefined), ['/']);
    assert.deepEqual(rootsOfAnswer('denied', "path '/' is outside the allowed roots (/var/log, /srv)"), [
      '/var/log',
      '/srv',
    ]);
    assert.deepEqual(rootsOfAnswer('unreachable', 'connection refused'), []);
  });

  it('opens on a root every answering host allows', () => {
    const h = (host: string, roots: string[]) => ({ host, roots });
    assert.equal(commonPath([h('a', ['/'])]), '/');
    assert.equal(commonPath([h('a', ['/srv', '/var/log']), h('b', ['/var/log'])]), '/var/log');
    assert.equal(commonPath([h('a', ['/']), h('b', ['/var/log'])]), '/var/log');
    assert.equal(commonPath([h('a', ['/var']), h('b', ['/var/log'])]), '/var/log');
    // None in common: the first named (each host refuses what is not its own, row by row).
    assert.equal(commonPath([h('a', ['/srv']), h('b', ['/opt'])]), '/srv');
    assert.equal(commonPath([h('dead', [])]), '/');
  });
});
