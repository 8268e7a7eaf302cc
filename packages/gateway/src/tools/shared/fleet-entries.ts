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
export function int64(value: number): bigint {
  return Number.isFinite(value) ? BigInt(Math.trunc(value)) : 0n;
}

/** `{ [key]: text }` when the bytes are UTF-8 (and not empty: the path itself), else nothing. */
export function textOf<K extends string>(key: K, path: Buffer): { [k in K]?: string } {
  return path.length > 0 && isUtf8(path) ? ({ [key]: path.toString('utf8') } as { [k in K]: string }) : {};
}

export function entryOut(entry: Entry): MessageInitShape<typeof EntrySchema> {
  return {
    path: entry.path,
    type: ENTRY_TYPE.number(entry.type),
    size: int64(entry.size),
    mtimeSec: int64(entry.mtimeSec),
    mtimeNsec: entry.mtimeNsec,
    utcOffsetMin: entry.utcOffsetMin,
    mode: entry.mode,
    uid: entry.uid,
    gid: entry.gid,
    inode: int64(entry.inode),
    nlink: int64(entry.nlink),
    depth: entry.depth,
    linkTarget: entry.linkTarget,
    error: entry.error && { code: ERROR_CODE.number(entry.error.code), detail: entry.error.detail },
    sizePartial: entry.sizePartial,
    allocated: entry.allocated ? int64(entry.allocated) : undefined,
    unreadableDirs: entry.unreadableDirs ? int64(entry.unreadableDirs) : undefined,
    ...textOf('pathText', entry.path),
  };
}

export function truncationOut(truncation: Truncation): MessageInitShape<typeof TruncationSchema> {
  return {
    dir: truncation.dir,
    shown: int64(truncation.shown),
    total: int64(truncation.total),
    reason: TRUNCATION_REASON.number(truncation.reason),
    ...textOf('dirText', truncation.dir),
  };
}

export function rowOut(row: Row): MessageInitShape<typeof RowSchema> {
  return {
    kind:
      row.kind === 'entry'
        ? { case: 'entry', value: entryOut(row.entry) }
        : { case: 'truncation', value: truncationOut(row.truncation) },
  };
}

/** A stat as the agent contract's answer, its agent_version empty (the gateway answers). */
export function statOut(stat: StatInfo): MessageInitShape<typeof StatResponseSchema> {
  return {
    entry: entryOut(stat.entry),
    owner: stat.owner,
    group: stat.group,
    atimeSec: int64(stat.atimeSec),
    atimeNsec: stat.atimeNsec,
    ctimeSec: int64(stat.ctimeSec),
    ctimeNsec: stat.ctimeNsec,
  };
}
