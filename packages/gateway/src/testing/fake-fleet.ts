// In-memory fleets for tests: hosts whose backends run core's walk engine over a tree
// described as a nested object, a host that is unreachable, and one that hangs until
// its call is aborted. No network, no file system.
import { posix } from 'node:path';
import {
  type EntryType,
  FleetError,
  type HostBackend,
  MemorySource,
  type RawEntry,
  type Row,
  type SourceRecord,
  type StatInfo,
  type Via,
  type WalkRequest,
  type WalkSummary,
  walk,
} from '@fleetls/core';
import type { Fleet, FleetHost } from '../fleet/fleet-types.js';

/** A file (size, mtime in seconds), a symlink, or a directory of more nodes. */
export type FakeNode =
  | { file: true; size: number; mtime: number; mode?: number }
  | { link: string; mtime: number }
  | { dir: Record<string, FakeNode>; mtime: number; denied?: boolean; du?: number };

export const file = (size: number, mtime = 1_700_000_000): FakeNode => ({ file: true, size, mtime });
export const link = (target: string, mtime = 1_700_000_000): FakeNode => ({ link: target, mtime });
export const dir = (
  children: Record<string, FakeNode>,
  opts: { mtime?: number; denied?: boolean; du?: number } = {},
): FakeNode => ({ dir: children, mtime: opts.mtime ?? 1_700_000_000, denied: opts.denied, du: opts.du });

let inodes = 1000;

function raw(name: string, node: FakeNode, offsetMin: number): RawEntry {
  const type: EntryType = 'file' in node ? 'file' : 'link' in node ? 'symlink' : 'dir';
  const e: RawEntry = {
    name: Buffer.from(name),
    type,
    size: 'file' in node ? node.size : 'link' in node ? node.link.length : 4096,
    mtimeSec: node.mtime,
    mtimeNsec: 0,
    utcOffsetMin: offsetMin,
    mode: type === 'dir' ? 0o40755 : type === 'symlink' ? 0o120777 : 0o100644,
    uid: 1000,
    gid: 1000,
    inode: inodes++,
    nlink: 1,
    dev: 1,
  };
  if ('link' in node) e.linkTarget = Buffer.from(node.link);
  return e;
}

/** Looks a path up as a host would: symlinks on the way (and the last one, when `followFinal`) are resolved. */
function find(rootNode: FakeNode, path: string, followFinal = false): FakeNode | undefined {
  let parts = path.split('/').filter((p) => p !== '');
  for (let hops = 0; hops <= 8; hops++) {
    let node: FakeNode | undefined = rootNode;
    let i = 0;
    for (; i < parts.length; i++) {
      if (!node || !('dir' in node)) return undefined;
      node = node.dir[parts[i]];
      if (node && 'link' in node && (i < parts.length - 1 || followFinal)) break;
    }
    if (i === parts.length) return node;
    const link = node as { link: string };
    parts = posix
      .resolve(`/${parts.slice(0, i).join('/')}`, link.link, ...parts.slice(i + 1))
      .split('/')
      .filter(Boolean);
  }
  return undefined;
}

function sourceFor(rootNode: FakeNode, path: string, offsetMin: number): MemorySource {
  const node = find(rootNode, path, true);
  if (!node) {
    const missing = raw(path.split('/').pop() ?? '', file(0), offsetMin);
    missing.type = 'unknown';
    missing.error = { code: 'NOT_FOUND', detail: 'path does not exist' };
    return new MemorySource(missing, []);
  }
  const records: SourceRecord[] = [];
  const dirErrors = new Map<string, { code: 'DENIED'; detail: string }>();
  const dirSizes = new Map<string, { size: number; partial: boolean }>();
  const visit = (n: FakeNode, rel: string) => {
    if (!('dir' in n)) return;
    if (n.denied) dirErrors.set(Buffer.from(rel).toString('latin1'), { code: 'DENIED', detail: 'permission denied' });
    if (n.du !== undefined) dirSizes.set(Buffer.from(rel).toString('latin1'), { size: n.du, partial: false });
    for (const [name, child] of Object.entries(n.dir)) {
      const childRel = rel === '' ? name : `${rel}/${name}`;
      const { name: _n, ...fields } = raw(name, child, offsetMin);
      records.push({ ...fields, path: Buffer.from(childRel) });
      visit(child, childRel);
    }
  };
  visit(node, '');
  return new MemorySource(raw(path.split('/').pop() ?? '', node, offsetMin), records, { dirErrors, dirSizes });
}

export interface MemoryBackendOptions {
  via?: Via;
  /** UTC offset reported for every entry, minutes east. */
  offsetMin?: number;
  /** Rows per yielded batch. */
  batch?: number;
  /** Build the listing of a path once (the tree must not change): for trees of 100,000 entries. */
  frozen?: boolean;
}

/** A backend over an in-memory tree; it records every request and every abort it saw. */
export class MemoryBackend implements HostBackend {
  readonly via: Via;
  readonly requests: WalkRequest[] = [];
  aborted = 0;
  closed = false;

  constructor(
    private readonly tree: FakeNode,
    private readonly opts: MemoryBackendOptions = {},
  ) {
    this.via = opts.via ?? 'agent';
  }

  private readonly sources = new Map<string, MemorySource>();

  private source(path: string): MemorySource {
    if (!this.opts.frozen) return sourceFor(this.tree, path, this.opts.offsetMin ?? 0);
    let s = this.sources.get(path);
    if (!s) {
      s = sourceFor(this.tree, path, this.opts.offsetMin ?? 0);
      this.sources.set(path, s);
    }
    return s;
  }

  async *walk(req: WalkRequest, signal: AbortSignal): AsyncGenerator<Row[], WalkSummary, void> {
    this.requests.push(req);
    const gen = walk(req, this.source(req.path), Date.now);
    const size = this.opts.batch ?? 50;
    let batch: Row[] = [];
    for (;;) {
      if (signal.aborted) {
        this.aborted++;
        throw FleetError.from(signal.reason, 'cancelled');
      }
      const r = gen.next();
      if (r.done) {
        if (batch.length > 0) yield batch;
        return r.value;
      }
      batch.push(r.value);
      if (batch.length >= size) {
        yield batch;
        batch = [];
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  }

  async stat(path: string): Promise<StatInfo> {
    const node = find(this.tree, path);
    if (!node) throw new FleetError('not_found', `${path}: path does not exist`);
    const r = raw(path.split('/').pop() ?? '', node, this.opts.offsetMin ?? 0);
    const entry = {
      path: Buffer.alloc(0),
      type: r.type,
      size: r.size,
      mtimeSec: r.mtimeSec,
      mtimeNsec: r.mtimeNsec,
      utcOffsetMin: r.utcOffsetMin,
      mode: r.mode,
      uid: r.uid,
      gid: r.gid,
      inode: r.inode,
      nlink: r.nlink,
      depth: 0,
      ...(r.linkTarget ? { linkTarget: r.linkTarget } : {}),
    };
    return {
      entry,
      owner: 'fleet',
      group: 'fleet',
      atimeSec: r.mtimeSec,
      atimeNsec: 0,
      ctimeSec: r.mtimeSec,
      ctimeNsec: 0,
    };
  }

  async probe(): Promise<{ version: string }> {
    return { version: 'fake-1.0' };
  }

  close(): void {
    this.closed = true;
  }
}

/** Every call fails as an unreachable host does. */
export class DeadBackend implements HostBackend {
  readonly via: Via = 'agent';
  // biome-ignore lint/correctness/useYield: it fails before any row
  async *walk(): AsyncGenerator<Row[], WalkSummary, void> {
    throw new FleetError('unavailable', 'connect ECONNREFUSED 127.0.0.1:9');
  }
  async stat(): Promise<StatInfo> {
    throw new FleetError('unavailable', 'connect ECONNREFUSED 127.0.0.1:9');
  }
  async probe(): Promise<{ version: string }> {
    throw new FleetError('unavailable', 'connect ECONNREFUSED 127.0.0.1:9');
  }
  close(): void {}
}

/** Never answers; counts the aborts it observed, and resolves `started` on first call. */
export class HangingBackend implements HostBackend {
  readonly via: Via = 'agent';
  aborts = 0;
  calls = 0;
  private wake: (() => void)[] = [];

  /** Resolves once `n` calls are in flight. */
  whenCalled(n = 1): Promise<void> {
    return new Promise((resolve) => {
      const check = () => (this.calls >= n ? resolve() : this.wake.push(check));
      check();
    });
  }

  private hang(signal: AbortSignal): Promise<never> {
    this.calls++;
    for (const w of this.wake.splice(0)) w();
    return new Promise((_, reject) => {
      const on = () => {
        this.aborts++;
        reject(FleetError.from(signal.reason, 'cancelled'));
      };
      if (signal.aborted) on();
      else signal.addEventListener('abort', on, { once: true });
    });
  }

  async *walk(_req: WalkRequest, signal: AbortSignal): AsyncGenerator<Row[], WalkSummary, void> {
    await this.hang(signal);
    yield [];
    throw new Error('unreachable');
  }
  stat(_p: string, _f: boolean, signal: AbortSignal): Promise<StatInfo> {
    return this.hang(signal);
  }
  probe(signal: AbortSignal): Promise<{ version: string }> {
    return this.hang(signal);
  }
  close(): void {}
}

/** A fleet over given backends; selectors: `all`, or a comma list of names. */
export class FakeFleet implements Fleet {
  private readonly list: FleetHost[];

  constructor(
    private readonly backends: Record<string, HostBackend>,
    labels: Record<string, Record<string, string>> = {},
  ) {
    this.list = Object.entries(backends).map(([name, b]) => ({
      name,
      via: b.via,
      address: b.via === 'embedded' ? '' : `${name}:7443`,
      labels: labels[name] ?? {},
      groups: [],
      sshFallback: false,
    }));
  }

  hosts(): FleetHost[] {
    return this.list;
  }

  host(name: string): FleetHost | undefined {
    return this.list.find((h) => h.name === name);
  }

  select(selector: string): FleetHost[] {
    if (selector === 'all') return this.list;
    return selector.split(',').map((name) => {
      const h = this.list.find((x) => x.name === name.trim());
      if (!h)
        throw new FleetError(
          'invalid_argument',
          `host: unknown host ${name}; known: ${this.list.map((x) => x.name).join(', ')}`,
        );
      return h;
    });
  }

  backend(host: string): HostBackend {
    const b = this.backends[host];
    if (!b) throw new FleetError('invalid_argument', `unknown host ${host}`);
    return b;
  }

  async close(): Promise<void> {
    for (const b of Object.values(this.backends)) b.close();
  }
}
