// The helper thread of a split tree walk (walk-split.ts): a pool worker that waits for
// pieces from the walk worker, walks each with its own source (its own descriptors, opened
// from the walk's root without following a symlink, as the walk's own are: beneath.ts)
// and posts the piece's rows encoded, with what it counted. It stops a piece where it is
// when the walk asks for it (it reached the piece) or when the rows it holds pass
// PIECE_BYTES_MAX (memory stays bounded), and sends what is left as open directories.
import { type MessagePort, receiveMessageOnPort } from 'node:worker_threads';
import {
  frameFromPlain,
  frameToPlain,
  nameKey,
  type PieceRest,
  pieceCounts,
  type Row,
  type WalkRequest,
  WalkState,
  WalkTally,
  walkPiece,
} from '@fleetls/core';
import { WalkResponseEncoder } from '@fleetls/proto/fast-encoder';
import { createFsSource, type FsSource } from '../../fs/source.js';
import { CANCEL } from '../transit.js';
import { type PackedPieceMessage, walkPackedOne } from './packed-split.js';
import { type FromWalk, type HelperResult, lastRowOf, type PieceMessage, SPLIT } from './shared.js';

/** Encoded rows a piece holds before it stops and sends the rest back. */
const PIECE_BYTES_MAX = 2 * 1024 * 1024;
const BATCH_BYTES = 32 * 1024;

export interface HelperInput extends FromWalk {
  role: 'helper';
  split: SharedArrayBuffer;
  port: MessagePort;
}

/** Runs until the walk is over; returns then (the worker goes back to its pool). */
export function runHelper(input: HelperInput): void {
  const ctl = new Int32Array(input.control);
  const sc = new Int32Array(input.split);
  const over = () => Atomics.load(ctl, CANCEL) !== 0 || Atomics.load(sc, SPLIT.QUIT) !== 0;
  let source: FsSource | undefined;
  try {
    for (;;) {
      if (over()) return;
      const got = receiveMessageOnPort(input.port);
      if (got === undefined) {
        const work = Atomics.load(sc, SPLIT.WORK);
        Atomics.store(sc, SPLIT.HUNGRY, 1);
        if (Atomics.load(sc, SPLIT.WORK) === work) Atomics.wait(sc, SPLIT.WORK, work, 100);
        continue;
      }
      const piece = got.message as PieceMessage | PackedPieceMessage;
      source ??= createFsSource(input.req.path, {
        followSymlinks: input.req.followSymlinks,
        allowedRoots: input.allowedRoots,
        isCancelled: over,
        skip: input.skip,
      });
      const asked = () => over() || Atomics.load(sc, SPLIT.GIVEBACK_ID) === piece.id;
      const msg =
        piece.t === 'packed-piece'
          ? walkPackedOne(input.req, source, piece, over, asked)
          : walkOne(input.req, source, piece, asked);
      const transfer = msg.bufs;
      input.port.postMessage(msg, transfer);
      Atomics.add(sc, SPLIT.POSTED, 1);
      Atomics.notify(sc, SPLIT.POSTED);
    }
  } finally {
    source?.close();
  }
}

function walkOne(req: WalkRequest, source: FsSource, piece: PieceMessage, asked: () => boolean): HelperResult {
  const state = new WalkState(req, source, () => Date.now(), piece.startedAt);
  state.rootDev = piece.rootDev;
  const enc = new WalkResponseEncoder(64 * 1024);
  const tally = new WalkTally();
  const bufs: ArrayBuffer[] = [];
  const entries: number[] = [];
  let batchEntries = 0;
  let bytes = 0;
  let last: Row | undefined;
  const cut = () => {
    if (enc.length === 0) return;
    bytes += enc.length;
    bufs.push(enc.takeArrayBuffer());
    entries.push(batchEntries);
    batchEntries = 0;
  };
  let rest: PieceRest | undefined;
  let stopped = false;
  try {
    const gen = walkPiece(state, [frameFromPlain(piece.frame, nameKey)], () => asked() || bytes > PIECE_BYTES_MAX);
    for (;;) {
      const r = gen.next();
      if (r.done) {
        rest = r.value;
        break;
      }
      enc.addRow(r.value);
      tally.row(r.value);
      last = r.value;
      if (r.value.kind === 'entry') batchEntries++;
      if (enc.length >= BATCH_BYTES) cut();
    }
    cut();
  } catch {
    // Cancelled, or a failure the walk meets again when it lists the range itself.
    stopped = true;
  }
  return {
    t: 'result',
    id: piece.id,
    ...pieceCounts(state, stopped),
    ...(rest
      ? { rest: { next: rest.next, frames: rest.frames.map((f) => frameToPlain(f, f.next, f.len, false)) } }
      : {}),
    bufs: stopped ? [] : bufs,
    entries: stopped ? [] : entries,
    ...(last ? { last: lastRowOf(last) } : {}),
    errors: tally.errors,
    bytes,
  };
}
