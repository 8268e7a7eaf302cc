import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { duBar, parseDuDepth, renderDuTable, renderDuTotals } from './disk-usage.js';
import { FleetError } from './errors.js';

describe('disk_usage depth', () => {
  it('takes 1 to 3, 1 by default', () => {
    assert.equal(parseDuDepth(undefined), 1);
    assert.equal(parseDuDepth(3), 3);
  });
  for (const bad of [0, 4, 9, -1, 1.5, '2', null]) {
    it(`refuses ${JSON.stringify(bad)}`, () =>
      assert.throws(
        () => parseDuDepth(bad),
        (e: unknown) => e instanceof FleetError && /^depth: an integer from 1 to 3/.test(e.message),
      ));
  }
});

describe('renderDuTable', () => {
  it('draws bars proportional to the largest size, at least one # for a non-empty directory', () => {
    assert.equal(duBar(100, 100, 10), '##########');
    assert.equal(duBar(50, 100, 10), '#####');
    assert.equal(duBar(1, 1_000_000, 10), '#');
    assert.equal(duBar(0, 100, 10), '');
  });

  it('is a compact table: human sizes, bars, host, full path; lower bounds marked', () => {
    const lines = renderDuTable(
      [
        { host: 'web-1', path: Buffer.from('log'), size: 12 * 1024 ** 3, partial: false },
        { host: 'web-2', path: Buffer.from('log/journal'), size: 6 * 1024 ** 3, partial: true },
        { host: 'web-1', path: Buffer.from('cache\n'), size: 1536, partial: false },
      ],
      '/var',
      true,
    );
    assert.deepEqual(lines, [
      '    SIZE                            HOST   PATH',
      '  12 GiB  ########################  web-1  /var/log',
      '≥6.0 GiB  ############              web-2  /var/log/journal',
      ' 1.5 KiB  #                         web-1  /var/cache\\n',
    ]);
  });

  it('leaves out the host column for one host', () => {
    assert.deepEqual(renderDuTable([{ host: 'a', path: Buffer.from('x'), size: 10, partial: false }], '/', false), [
      'SIZE                            PATH',
      '10 B  ########################  /x',
    ]);
  });
});

describe('renderDuTotals', () => {
  it("is du's root line per host, exact bytes beside the human size, ≥ for a lower bound", () => {
    const totals = [
      { host: 'web1', size: 29512, partial: false },
      { host: 'web2', size: 1 << 30, partial: true },
    ];
    assert.deepEqual(renderDuTotals(totals, '/srv', true), [
      'total  29 KiB (29512 bytes)  web1  /srv',
      'total  ≥1.0 GiB (≥1073741824 bytes)  web2  /srv',
    ]);
    assert.deepEqual(renderDuTotals(totals.slice(0, 1), '/srv', false), ['total  29 KiB (29512 bytes)  /srv']);
  });
});
