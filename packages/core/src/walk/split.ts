// A tree walk split between threads (the agent's two walk workers), the way fd's and
// ripgrep's parallel walkers split one: the walk hands a helper the back part of one open
// directory's kept children (a piece), walks the front itself, and splices the piece's rows
// in where they belong. A piece's rows are the walk's own only when no limit that depends on
// the rest of the walk bit in it: a piece never stops (deadline, max_entries), and the
// walk checks, when it reaches the piece, that max_entries leaves room for all it needed
// (WalkState.need); otherwise it walks the range itself. Everything else a tree walk counts
// adds up (seen, matched, depth-limited), and caps per directory do not depend on order.
// A walk that sizes directories (hard links counted once per walk) or resumes a page is
// never split. This module is the engine's side (pure): frames as the helper gets them,
// and what it gives back; the threads are the agent's (packages/agent/src/walk-split*).
import type { EntryError, EntryType, RawEntry } from '../domain/types.js';
import type { Ancestors, Pending, WalkState } from './state.js';

/** What a split walk's frames have in common, whatever they hold (core's Frame, the agent's packed ones). */
export interface SplitFrame {
  /** How many children the directory kept (for its cap's report). */
  len: number;
  next: number;
  /** A piece's range ends here (its directory is closed by the walk that gave it). */
  end?: number;
  /** Ranges given to a helper, in order: the walk splices each when it reaches its start. */
  marks?: Mark[];
}

/** A directory being listed: its kept children in order, and the next one to visit. */
export interface Frame extends SplitFrame {
  dir: Buffer;
  depth: number;
  chain: Ancestors | undefined;
  /** Kept children from index `off` (a piece holds only its range). */
  kept: Pending[];
  off: number;
  total: number;
  cap: number;
  /** The child that is `after`'s component here (resume path), or -1. */
  resumeAt: number;
}

export interface Mark {
  start: number;
  stop: number;
  id: number;
}

/** Where a piece stopped when asked back: the next child of its range, and its open subdirectories. */
export interface PieceRest {
  next: number;
  frames: Frame[];
}

/** What a helper counted of a piece, whatever its frames (core's here, the agent's packed ones). */
export interface PieceCounts {
  sent: number;
  seen: number;
  matched: number;
  depthLimited: number;
  /** The max_entries the piece's rows depended on, counted from the piece's start. */
  need: number;
  /** The piece hit the deadline (or failed): the walk lists the range itself. */
  stopped: boolean;
}

/** What a helper made of a piece. */
export interface PieceResult extends PieceCounts {
  id: number;
  rest?: PieceRest;
}

/** A helper's counts of the piece it walked with `state`; `stopped`: it was cut short besides. */
export function pieceCounts(state: WalkState, stopped: boolean): PieceCounts {
  const s = state.summary;
  return {
    sent: s.entriesSent,
    seen: s.entriesSeen,
    matched: s.entriesMatched,
    depthLimited: s.depthLimitedDirs,
    need: state.need,
    stopped: stopped || state.stopped,
  };
}

/**
 * Where a frame's walk goes on after a kept piece of it: past the piece's range, or, when the
 * helper was asked back before it finished, where it stopped, with its open subdirectories
 * pushed on `stack` to be walked here as the walk's own.
 */
function afterPiece<F>(stack: F[], mark: Mark, rest: { next: number; frames: F[] } | undefined): number {
  if (rest === undefined) return mark.stop;
  for (const g of rest.frames) stack.push(g);
  return rest.next;
}

/**
 * A kept piece's counts made the walk's own, as if it had listed the range: added to its
 * summary, and its max_entries need counted from where the walk stood when the piece began.
 */
function addPieceCounts(state: WalkState, piece: PieceCounts): void {
  const { summary } = state;
  summary.entriesSent += piece.sent;
  summary.entriesSeen += piece.seen;
  summary.entriesMatched += piece.matched;
  summary.depthLimitedDirs += piece.depthLimited;
  state.needs(summary.entriesSent - piece.sent + piece.need);
}

/** A piece as the walk splices it: its counts, and where the helper stopped when asked back. */
export interface SplitPiece<F> extends PieceCounts {
  rest?: { next: number; frames: F[] };
}

/** The walk's side of a split: its threads, and where the spliced rows go (both tree walks'). */
export interface Splitter<F extends SplitFrame, P extends SplitPiece<F>> {
  /** Called at every step of the walk: may give a helper a range of one frame (adding its mark). */
  step(stack: readonly F[]): void;
  /** The walk reached `mark`: its piece (waiting for it), or undefined (the walk lists the range). */
  take(mark: Mark): P | undefined;
  /** Appends a kept piece's rows to the walk's output, after everything sent so far. */
  splice(piece: P): void;
}

/** Core's tree walk's splitter (walkTree). */
export type TreeSplitter = Splitter<Frame, PieceResult>;

/**
 * A split walk's step, before it visits the top frame's next child (both tree walks' loops):
 * the helper is given a range if it is idle; then, if that child is where a piece starts, the
 * piece is spliced in (its rows sent, its counts made the walk's own, the frame moved past
 * it), or, when a limit bit in it, left to the walk. True when the top frame was at a piece:
 * the loop goes round again.
 */
export function splitStep<F extends SplitFrame, P extends SplitPiece<F>>(
  state: WalkState,
  stack: F[],
  split: Splitter<F, P>,
): boolean {
  split.step(stack);
  const top = stack[stack.length - 1];
  const marks = top.marks;
  if (marks === undefined || marks[0].start !== top.next) return false;
  const mark = marks.shift() as Mark;
  if (marks.length === 0) top.marks = undefined;
  const piece = split.take(mark);
  // The piece is the walk's own rows only if no limit bit in it: a cap it kept whole, and
  // max_entries never reached, given what this walk had sent before it.
  if (piece === undefined || piece.stopped || state.summary.entriesSent + piece.need > state.req.maxEntries)
    return true;
  addPieceCounts(state, piece);
  split.splice(piece);
  top.next = afterPiece(stack, mark, piece.rest);
  return true;
}

/** A frame's children as plain data (strings of bytes, numbers), to cross between threads. */
export interface PlainFrame {
  dir: string;
  depth: number;
  chain: string[];
  off: number;
  len: number;
  next: number;
  total: number;
  cap: number;
  end?: number;
  /** Per child: name, type, lazy, error, link target (latin1 strings); numbers packed below. */
  names: string[];
  types: EntryType[];
  lazy: boolean[];
  errors: (EntryError | null)[];
  links: (string | null)[];
  /** 10 numbers per child: size, mtimeSec, mtimeNsec, utcOffsetMin, mode, uid, gid, inode, nlink, dev. */
  nums: Float64Array;
  keyed: boolean;
}

const NUMS = 10;

function chainKeys(chain: Ancestors | undefined): string[] {
  const keys: string[] = [];
  for (let a = chain; a; a = a.up) keys.push(a.key);
  return keys;
}

function chainOf(keys: string[]): Ancestors | undefined {
  let chain: Ancestors | undefined;
  for (let i = keys.length - 1; i >= 0; i--) chain = { key: keys[i], up: chain };
  return chain;
}

/** Children [from, to) of `frame` as a plain frame (`end` set: a piece's range). */
export function frameToPlain(frame: Frame, from: number, to: number, piece: boolean): PlainFrame {
  const n = to - from;
  const out: PlainFrame = {
    dir: frame.dir.toString('latin1'),
    depth: frame.depth,
    chain: chainKeys(frame.chain),
    off: from,
    len: frame.len,
    next: from,
    total: frame.total,
    cap: frame.cap,
    names: new Array(n),
    types: new Array(n),
    lazy: new Array(n),
    errors: new Array(n),
    links: new Array(n),
    nums: new Float64Array(n * NUMS),
    keyed: false,
  };
  if (piece) out.end = to;
  for (let k = 0; k < n; k++) {
    const p = frame.kept[from + k - frame.off];
    const r = p.raw;
    out.names[k] = r.name.toString('latin1');
    out.types[k] = r.type;
    out.lazy[k] = r.lazy === true;
    out.errors[k] = r.error ?? null;
    out.links[k] = r.linkTarget === undefined ? null : r.linkTarget.toString('latin1');
    if (p.key !== undefined) out.keyed = true;
    const o = k * NUMS;
    const v = out.nums;
    v[o] = r.size;
    v[o + 1] = r.mtimeSec;
    v[o + 2] = r.mtimeNsec;
    v[o + 3] = r.utcOffsetMin;
    v[o + 4] = r.mode;
    v[o + 5] = r.uid;
    v[o + 6] = r.gid;
    v[o + 7] = r.inode;
    v[o + 8] = r.nlink;
    v[o + 9] = r.dev;
  }
  return out;
}

/** A plain frame as the engine's; `key` makes each child's sort key (by name) when the frame had them. */
export function frameFromPlain(pf: PlainFrame, key: (name: Buffer) => string): Frame {
  const dir = Buffer.from(pf.dir, 'latin1');
  const n = pf.names.length;
  const kept: Pending[] = new Array(n);
  const depth = pf.depth;
  for (let k = 0; k < n; k++) {
    const o = k * NUMS;
    const v = pf.nums;
    const raw: RawEntry = {
      name: Buffer.from(pf.names[k], 'latin1'),
      type: pf.types[k],
      size: v[o],
      mtimeSec: v[o + 1],
      mtimeNsec: v[o + 2],
      utcOffsetMin: v[o + 3],
      mode: v[o + 4],
      uid: v[o + 5],
      gid: v[o + 6],
      inode: v[o + 7],
      nlink: v[o + 8],
      dev: v[o + 9],
    };
    if (pf.lazy[k]) raw.lazy = true;
    const error = pf.errors[k];
    if (error !== null) raw.error = error;
    const link = pf.links[k];
    if (link !== null) raw.linkTarget = Buffer.from(link, 'latin1');
    const p: Pending = { raw, dir, depth };
    if (pf.keyed) p.key = key(raw.name);
    kept[k] = p;
  }
  const f: Frame = {
    dir,
    depth: pf.depth,
    chain: chainOf(pf.chain),
    kept,
    off: pf.off,
    len: pf.len,
    next: pf.next,
    total: pf.total,
    cap: pf.cap,
    resumeAt: -1,
  };
  if (pf.end !== undefined) f.end = pf.end;
  return f;
}
