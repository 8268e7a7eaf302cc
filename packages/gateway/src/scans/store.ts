// The process-local ScanStore (the interface is fleet/page-store.ts's, beside PageStore: the seam a
// JetStream store plugs into, issue 20). It keeps up to `memoryRows` rows in memory over all
// scans and spills the rest, one file per host result, under the gateway's state directory; a
// spilled result is read back for its page.
import { mkdirSync, rmSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ScanStore } from '../fleet/page-store.js';

/** JSON with Buffers (entry paths are raw bytes) as `{"$b": base64}`. */
function serialize(value: unknown): string {
  return JSON.stringify(value, function (this: Record<string, unknown>, key, v) {
    const raw = this[key];
    return Buffer.isBuffer(raw) ? { $b: raw.toString('base64') } : v;
  });
}

function deserialize(text: string): unknown {
  return JSON.parse(text, (_k, v) =>
    v !== null && typeof v === 'object' && typeof (v as { $b?: unknown }).$b === 'string' && Object.keys(v).length === 1
      ? Buffer.from((v as { $b: string }).$b, 'base64')
      : v,
  );
}

interface Kept {
  value?: unknown;
  rows: number;
  /** The spill file's write, when the value went to a file. */
  written?: Promise<string>;
}

export class LocalScanStore implements ScanStore {
  private readonly kept = new Map<string, Map<number, Kept>>();
  private rowsInMemory = 0;
  private spills = 0;
  private dirMade = false;

  /** `spillDir`: a directory of this process's own (made when first needed, removed on close). */
  constructor(
    private readonly memoryRows_: number,
    private readonly spillDir: string | undefined,
  ) {}

  get memoryRows(): number {
    return this.rowsInMemory;
  }

  get spilled(): number {
    return this.spills;
  }

  put(scan: string, host: number, value: unknown, rows: number): void {
    let m = this.kept.get(scan);
    if (!m) {
      m = new Map();
      this.kept.set(scan, m);
    }
    if (this.spillDir === undefined || this.rowsInMemory + rows <= this.memoryRows_) {
      this.rowsInMemory += rows;
      m.set(host, { value, rows });
      return;
    }
    if (!this.dirMade) {
      mkdirSync(this.spillDir, { recursive: true, mode: 0o700 });
      this.dirMade = true;
    }
    const file = join(this.spillDir, `${scan}-${host}.json`);
    this.spills++;
    const written = writeFile(file, serialize(value), { mode: 0o600 }).then(() => file);
    // A failed write surfaces when the page reads it back; nothing is thrown here.
    written.catch(() => {});
    m.set(host, { rows, written });
  }

  async get(scan: string, host: number): Promise<unknown> {
    const k = this.kept.get(scan)?.get(host);
    if (!k) return undefined;
    if (!k.written) return k.value;
    return deserialize(await readFile(await k.written, 'utf8'));
  }

  take(scan: string, host: number): void {
    const m = this.kept.get(scan);
    const k = m?.get(host);
    if (!m || !k) return;
    m.delete(host);
    this.release(k);
  }

  drop(scan: string): void {
    const m = this.kept.get(scan);
    if (!m) return;
    this.kept.delete(scan);
    for (const k of m.values()) this.release(k);
  }

  private release(k: Kept): void {
    if (k.written) void k.written.then((f) => rmSync(f, { force: true })).catch(() => {});
    else this.rowsInMemory -= k.rows;
  }

  close(): void {
    for (const id of [...this.kept.keys()]) this.drop(id);
    if (this.spillDir !== undefined && this.dirMade) rmSync(this.spillDir, { recursive: true, force: true });
  }
}
