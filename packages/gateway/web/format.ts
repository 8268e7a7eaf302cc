// Values as the text answers show them: names escaped by core's own display-text (the same
// function as the MCP and CLI text), sizes as ls -h, modes as ls -l, times in the host's offset.
import { displayBytes, formatMtime, humanSize, modeString } from '@fleetls/core/display-text';

export { humanSize };

/** A bytes field of the Fleet API's JSON (base64) → the escaped name the text answers show. */
export function nameText(b64: string | undefined): string {
  if (!b64) return '';
  const bin = atob(b64);
  return displayBytes(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
}

export type EntryKind = 'file' | 'dir' | 'symlink' | 'fifo' | 'socket' | 'char' | 'block' | 'unknown';

/** ENTRY_TYPE_DIR → dir. */
export function kindOf(type: string | undefined): EntryKind {
  const k = (type ?? 'ENTRY_TYPE_FILE').replace('ENTRY_TYPE_', '').toLowerCase();
  return (['file', 'dir', 'symlink', 'fifo', 'socket', 'char', 'block'].includes(k) ? k : 'unknown') as EntryKind;
}

export interface JsonEntry {
  path?: string;
  type?: string;
  size?: string;
  mtimeSec?: string;
  mtimeNsec?: number;
  utcOffsetMin?: number;
  mode?: number;
  uid?: number;
  gid?: number;
  linkTarget?: string;
  sizePartial?: boolean;
  error?: { code?: string; detail?: string };
}

/** A host's status in an answer (HostStatus as Connect JSON). */
export interface JsonStatus {
  host: string;
  status: string;
  via?: string;
  elapsedMs?: string;
  message?: string;
}

export const modeText = (entry: JsonEntry): string => modeString(entry.mode ?? 0, kindOf(entry.type));
/** The size as ls -h: "1.2K". */
export const sizeText = (entry: JsonEntry): string => humanSize(Number(entry.size ?? 0));
/** The numeric owner, as a tooltip beside the names: "uid 0, gid 0". */
export const idsText = (entry: JsonEntry): string => `uid ${entry.uid ?? 0}, gid ${entry.gid ?? 0}`;
export const mtimeText = (entry: JsonEntry): string =>
  entry.mtimeSec === undefined
    ? ''
    : formatMtime(Number(entry.mtimeSec), entry.mtimeNsec ?? 0, entry.utcOffsetMin ?? 0);
/** Exact bytes with thousands separators: "70,000 bytes". */
export const exactBytes = (bytes: number): string => `${bytes.toLocaleString('en-US')} bytes`;
export const errorCode = (code: string | undefined): string => (code ?? 'ERROR_CODE_ERROR').replace('ERROR_CODE_', '');
/** An entry that could not be read, as the text answers say it: "[DENIED] detail". */
export const errorText = (error: NonNullable<JsonEntry['error']>, noDetail = ''): string =>
  `[${errorCode(error.code)}] ${error.detail || noDetail}`;
