// parseDirents64 on hand-made linux_dirent64 records: every d_type, names of any bytes,
// "." and ".." skipped, padding that is not zeros, and records the kernel would never write.
import assert from 'node:assert/strict';
import { endianness } from 'node:os';
import { describe, it } from 'node:test';
import type { EntryType } from '@fleetls/core';
import { type Dirents, parseDirents64 } from './dirent64.js';

/** One record as the kernel writes it: header, name, NUL, padded to 8 with `pad` bytes; `reclen` and `noNul` to spoil it. */
function record(
  name: Buffer | string,
  dType: number,
  o: { pad?: number; reclen?: number; noNul?: boolean } = {},
): Buffer {
  const bytes = typeof name === 'string' ? Buffer.from(name, 'latin1') : name;
  const size = o.reclen ?? Math.ceil((19 + bytes.length + 1) / 8) * 8;
  const r = Buffer.alloc(Math.max(size, 19 + bytes.length + (o.noNul ? 0 : 1)), o.pad ?? 0);
  r.writeBigUInt64LE(12345n, 0); // d_ino
  r.writeBigInt64LE(-1n, 8); // d_off: opaque to the reader
  if (endianness() === 'LE') r.writeUInt16LE(size, 16);
  else r.writeUInt16BE(size, 16);
  r[18] = dType;
  bytes.copy(r, 19);
  if (!o.noNul) r[19 + bytes.length] = 0;
  return r;
}

function parse(...records: Buffer[]): [string, EntryType][] {
  const buf = Buffer.concat(records);
  const out: Dirents = { names: [], types: [] };
  parseDirents64(buf, buf.length, out);
  return out.names.map((n, i) => [n.toString('latin1'), out.types[i]]);
}

describe('parseDirents64', () => {
  it('gives each entry its type from d_type, unknown where the kernel does not say', () => {
    const table: [number, EntryType][] = [
      [0, 'unknown'],
      [1, 'fifo'],
      [2, 'char'],
      [4, 'dir'],
      [6, 'block'],
      [8, 'file'],
      [10, 'symlink'],
      [12, 'socket'],
      [14, 'unknown'], // DT_WHT
      [200, 'unknown'],
    ];
    assert.deepEqual(
      parse(...table.map(([t]) => record(`t${t}`, t))),
      table.map(([t, type]) => [`t${t}`, type]),
    );
  });

  it('skips "." and "..", but not names that start with dots', () => {
    assert.deepEqual(parse(record('.', 4), record('..', 4), record('.hidden', 8), record('...', 8), record('..x', 8)), [
      ['.hidden', 'file'],
      ['...', 'file'],
      ['..x', 'file'],
    ]);
  });

  it('keeps the bytes of any name: not UTF-8, spaces, newlines, 255 bytes; padding need not be zero', () => {
    const names = [
      Buffer.from([0xff, 0xfe, 0x0a, 0x41]),
      Buffer.from('a b\nc\t"d"'),
      Buffer.from('é', 'utf8'),
      Buffer.alloc(255, 0x78),
      Buffer.from('x'),
    ];
    const buf = Buffer.concat(names.map((n) => record(n, 8, { pad: 0xaa })));
    const out: Dirents = { names: [], types: [] };
    parseDirents64(buf, buf.length, out);
    assert.deepEqual(out.names, names);
    // Each name is its own copy: the chunk is read over by the next call.
    buf.fill(0);
    assert.deepEqual(out.names, names);
  });

  it('reads only the first `length` bytes, and empties the output first', () => {
    const buf = Buffer.concat([record('a', 8), record('b', 8), Buffer.alloc(64, 0x55)]);
    const out: Dirents = { names: [Buffer.from('stale')], types: ['dir'] };
    parseDirents64(buf, record('a', 8).length, out);
    assert.deepEqual(out, { names: [Buffer.from('a')], types: ['file'] });
    parseDirents64(buf, 0, out);
    assert.deepEqual(out, { names: [], types: [] });
  });

  it('refuses records the kernel would never write (EIO), never looping on them', () => {
    const good = record('ok', 8);
    for (const [why, buf] of [
      ['truncated header', Buffer.concat([good, good.subarray(0, 10)])],
      ['record length 0', Buffer.concat([good, record('z', 8, { reclen: 0 })])],
      ['record length 12', record('z', 8, { reclen: 12 })],
      ['past the end', Buffer.concat([good, record('long-name', 8)]).subarray(0, good.length + 24)],
      ['no NUL', record('abcde', 8, { reclen: 24, noNul: true })],
      ['empty name', record('', 8)],
    ] as const)
      assert.throws(
        () => parseDirents64(buf, buf.length, { names: [], types: [] }),
        { code: 'EIO', message: /malformed linux_dirent64/ },
        why,
      );
  });
});
