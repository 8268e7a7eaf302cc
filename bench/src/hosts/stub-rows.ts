// Canned Walk rows for the bench's stand-in agents (agent-host.ts stub, nats-sim.ts), which
// answer from memory and touch no file system: file entries with spread sizes and mtimes.

export interface StubRow {
  entry: Record<string, unknown> & { size: number; path: Buffer };
}

/** `n` file rows; `where(i)` names row i's path (relative to the walk's root) and depth. */
export function stubRows(n: number, where: (i: number) => { path: string; depth: number }): StubRow[] {
  return Array.from({ length: n }, (_, i) => {
    const { path, depth } = where(i);
    return {
      entry: {
        path: Buffer.from(path),
        type: 'ENTRY_TYPE_FILE',
        size: ((i * 7919) % 1_000_003) + 1,
        mtimeSec: 1_700_000_000 + i,
        mtimeNsec: 0,
        utcOffsetMin: 0,
        mode: 0o100644,
        uid: 0,
        gid: 0,
        inode: 1000 + i,
        nlink: 1,
        depth,
      },
    };
  });
}
