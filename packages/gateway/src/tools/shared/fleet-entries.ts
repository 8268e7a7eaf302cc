// The Fleet face's entries, cuts and rows as the agent contract's protobuf-es messages (the
// one runtime of the Fleet face), in their init shapes: the adapter that sends an answer
// makes the message (create), so a CLI run that loads a tool loads no protobuf runtime.
// Paths are there as text too: each wire entry, cut
// and difference carries its path as a UTF-8 string beside the bytes when the bytes are
// valid UTF-8, so a JSON caller (Connect, a dashboard, curl) reads `"pathText": "etc/hosts"`,
// not base64; a name that is not UTF-8 keeps its bytes only (the bytes stay for binary
// clients, which read them free). Agents never send the text.
import { isUtf8 } from 'node:buffer';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { Entry, Row, StatInfo, Truncation } from '@fleetls/core';
import type { EntrySchema, RowSchema, StatResponseSchema, TruncationSchema } from '@fleetls/proto/agent_pb';
import { ENTRY_TYPE, ERROR_CODE, TRUNCATION_REASON } from '@fleetls/proto/enums';

/**
 * A 64-bit field of a count or time the domain keeps as a number: whole, as protobufjs wrote
 * it before; a value that is not finite is 0, never a failed answer (BigInt would throw).
 */
export function int64(n: number): bigint {
  return Number.isFinite(n) ? BigInt(Math.trunc(n)) : 0n;
}

/** `{ [key]: text }` when the bytes are UTF-8 (and not empty: the path itself), else nothing. */
export function textOf<K extends string>(key: K, path: Buffer): { [k in K]?: string } {
  return path.length > 0 && isUtf8(path) ? ({ [key]: path.toString('utf8') } as { [k in K]: string }) : {};
}

export function entryOut(e: Entry): MessageInitShape<typeof EntrySchema> {
  return {
    path: e.path,
    type: ENTRY_TYPE.number(e.type),
    size: int64(e.size),
    mtimeSec: int64(e.mtimeSec),
    mtimeNsec: e.mtimeNsec,
    utcOffsetMin: e.utcOffsetMin,
    mode: e.mode,
    uid: e.uid,
    gid: e.gid,
    inode: int64(e.inode),
    nlink: int64(e.nlink),
    depth: e.depth,
    linkTarget: e.linkTarget,
    error: e.error && { code: ERROR_CODE.number(e.error.code), detail: e.error.detail },
    sizePartial: e.sizePartial,
    allocated: e.allocated ? int64(e.allocated) : undefined,
    unreadableDirs: e.unreadableDirs ? int64(e.unreadableDirs) : undefined,
    ...textOf('pathText', e.path),
  };
}

export function truncationOut(t: Truncation): MessageInitShape<typeof TruncationSchema> {
  return {
    dir: t.dir,
    shown: int64(t.shown),
    total: int64(t.total),
    reason: TRUNCATION_REASON.number(t.reason),
    ...textOf('dirText', t.dir),
  };
}

export function rowOut(r: Row): MessageInitShape<typeof RowSchema> {
  return {
    kind:
      r.kind === 'entry'
        ? { case: 'entry', value: entryOut(r.entry) }
        : { case: 'truncation', value: truncationOut(r.truncation) },
  };
}

/** A stat as the agent contract's answer, its agent_version empty (the gateway answers). */
export function statOut(s: StatInfo): MessageInitShape<typeof StatResponseSchema> {
  return {
    entry: entryOut(s.entry),
    owner: s.owner,
    group: s.group,
    atimeSec: int64(s.atimeSec),
    atimeNsec: s.atimeNsec,
    ctimeSec: int64(s.ctimeSec),
    ctimeNsec: s.ctimeNsec,
  };
}
