// Rows and a summary at every edge the wire must carry, for the codec tests: a name that is
// not UTF-8 and holds a newline, numbers past 32 and 53 bits, times before 1970, an empty path,
// error and unknown codes, every truncation field. Each codec (protobufjs through ./codec, the
// fast encoder and decoder) is held to the same rows.
import type { Entry, Row, WalkSummary } from '@fleetls/core';

/** A symlink whose name, size, inode and gid are each at an edge. */
export const EDGE_ENTRY: Entry = {
  path: Buffer.from([0x61, 0x2f, 0xff, 0xfe, 0x0a, 0x09]),
  type: 'symlink',
  size: 2 ** 40 + 3,
  mtimeSec: 1_700_000_000,
  mtimeNsec: 123_456_789,
  utcOffsetMin: -330,
  mode: 0o120777,
  uid: 1000,
  gid: 4_294_967_294,
  inode: 2 ** 35,
  nlink: 3,
  depth: 2,
  linkTarget: Buffer.from('../t\u00e9'),
};

export const EDGE_ROWS: Row[] = [
  { kind: 'entry', entry: EDGE_ENTRY },
  {
    kind: 'entry',
    entry: {
      ...EDGE_ENTRY,
      mtimeSec: -86_400 * 365,
      mtimeNsec: 5,
      utcOffsetMin: 60,
      size: 0,
      path: Buffer.alloc(0),
      linkTarget: undefined,
    },
  },
  { kind: 'entry', entry: { ...EDGE_ENTRY, mtimeSec: -1, utcOffsetMin: -1 } },
  {
    kind: 'entry',
    entry: { ...EDGE_ENTRY, type: 'dir', error: { code: 'TIMEOUT', detail: 'symlink loop — é' }, sizePartial: true },
  },
  {
    kind: 'entry',
    entry: { ...EDGE_ENTRY, type: 'unknown', uid: 0, gid: 0, size: Number.MAX_SAFE_INTEGER, inode: 2 ** 63 },
  },
  { kind: 'truncation', truncation: { dir: Buffer.from('a/b'), shown: 0, total: 2 ** 33, reason: 'deadline' } },
  { kind: 'truncation', truncation: { dir: Buffer.alloc(0), shown: 7, total: 9, reason: 'bytes' } },
];

export const EDGE_SUMMARY: WalkSummary = {
  entriesSent: 4,
  entriesSeen: 300_000,
  entriesMatched: 0,
  truncations: [
    { dir: Buffer.alloc(0), shown: 4, total: 9, reason: 'top_n' },
    { dir: Buffer.from('x'), shown: 1, total: 2, reason: 'depth' },
  ],
  elapsedMs: 1,
  depthLimitedDirs: 12,
};

/** No summary (a page before the last), the summary, and the summary with applied features. */
export const EDGE_SUMMARIES: (WalkSummary | undefined)[] = [
  undefined,
  EDGE_SUMMARY,
  { ...EDGE_SUMMARY, applied: ['min_size', 'name'] },
];
