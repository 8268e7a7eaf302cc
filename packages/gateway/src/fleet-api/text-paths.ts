// The Fleet face's paths as text too: each wire entry, cut and difference carries its path
// as a UTF-8 string beside the bytes when the bytes are valid UTF-8, so a JSON caller
// (Connect, a dashboard, curl) reads `"pathText": "etc/hosts"`, not base64; a name that is
// not UTF-8 keeps its bytes only (the bytes stay for binary clients, which read them free).
// Done here, not in the shared codec: agents never send the text.
import { isUtf8 } from 'node:buffer';
import type { Entry, Row, Truncation } from '@fleetls/core';
import { entryToWire, rowToWire, truncationToWire } from '@fleetls/proto/codec';

/** `{ [key]: text }` when the bytes are UTF-8 (and not empty: the path itself), else nothing. */
export function textOf<K extends string>(key: K, path: Buffer): { [k in K]?: string } {
  return path.length > 0 && isUtf8(path) ? ({ [key]: path.toString('utf8') } as { [k in K]: string }) : {};
}

export function entryOut(e: Entry): ReturnType<typeof entryToWire> {
  return { ...entryToWire(e), ...textOf('pathText', e.path) };
}

export function truncationOut(t: Truncation): ReturnType<typeof truncationToWire> {
  return { ...truncationToWire(t), ...textOf('dirText', t.dir) };
}

export function rowOut(r: Row): ReturnType<typeof rowToWire> {
  const w = rowToWire(r);
  if (r.kind === 'entry') return { ...w, entry: entryOut(r.entry) };
  return { ...w, truncation: truncationOut(r.truncation) };
}
