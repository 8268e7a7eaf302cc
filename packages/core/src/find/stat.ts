// What find says of one path: the stat command's output (find/command.ts's
// buildStatCommand) as the agent's StatInfo, and a path find could not stat as the agent's
// error, as an entry or as the call's failure.

import type { RawEntry, StatInfo } from '../domain/types.js';
import { codeFromErrno, entryErrorFromErrno, errnoFromMessage } from '../errors/errno.js';
import { codeFromEntryError, FleetError } from '../errors/errors.js';
import { errorRawEntry } from '../walk/raw-entry.js';
import { FIELDS, STAT_FIELDS } from './command.js';
import { parseTimestamp, toRecord } from './records.js';
import { stderrMessage } from './remote-shell.js';

/** The listed path itself when find could not stat it: an error entry, as the agent gives. */
export function rootErrorEntry(stderr: string): RawEntry {
  const errno = errnoFromMessage(stderr);
  return errorRawEntry(
    Buffer.alloc(0),
    'dir',
    entryErrorFromErrno(errno, errno ? undefined : stderr.split('\n')[0] || 'find failed'),
  );
}

/** The stat command's output → StatInfo (the path itself: empty path, depth 0), as the agent's. */
export function parseStat(out: Buffer, follow: boolean): StatInfo | undefined {
  const f: Buffer[] = [];
  let start = 0;
  for (;;) {
    const nul = out.indexOf(0, start);
    if (nul < 0) break;
    f.push(out.subarray(start, nul));
    start = nul + 1;
  }
  if (f.length < STAT_FIELDS) return undefined;
  const rec = toRecord(f, follow);
  if (rec.error) {
    throw new FleetError(codeFromEntryError(rec.error.code), rec.error.detail);
  }
  const s = (i: number) => f[FIELDS - 1 + i].toString('latin1');
  const [atimeSec, atimeNsec] = parseTimestamp(s(2));
  const [ctimeSec, ctimeNsec] = parseTimestamp(s(3));
  const { path: _path, dev: _dev, ...fields } = rec;
  const entry: StatInfo['entry'] = { path: Buffer.alloc(0), ...fields, depth: 0 };
  if (follow) delete entry.linkTarget;
  return { entry, owner: s(0), group: s(1), atimeSec, atimeNsec, ctimeSec, ctimeNsec };
}

/** A failed stat/find of the path itself → FleetError with find's message. */
export function pathError(stderr: string, path: string): FleetError {
  const msg = stderrMessage(stderr) || `cannot stat ${path}`;
  return new FleetError(codeFromErrno(errnoFromMessage(msg)) ?? 'internal', msg);
}
