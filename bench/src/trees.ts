// Deterministic benchmark trees under os.tmpdir(): the same seed gives the same names, sizes,
// mtimes and links on every machine. A tree is built in a scratch directory and renamed into
// place, then a marker file records what was built, so later runs reuse it.
//
// Shape (entries counted below the root, the root itself excluded):
//   flat/            one directory with 50,000 files (trees of 100k entries and more)
//   deep/            a 40-level chain of directories, a few files on each level, one name
//                    that is not valid UTF-8
//   links/           symlinks to files, to directories, and a dangling one
//   .cache/          hidden directory with hidden files
//   projects/        the rest: nested project-like directories (fan-out 0-7, 2-60 files each)
// Sizes follow a log-normal law, a few files are multi-GB sparse (ftruncate, no data written),
// and mtimes spread over three years before a fixed date.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const TREE_FORMAT = 3;

export interface TreeSpec {
  name: string;
  /** Entries wanted below the root (reached within a few hundred). */
  target: number;
  seed: number;
  /** Files in flat/ (0 = no flat directory). */
  flat: number;
}

export interface Tree {
  spec: TreeSpec;
  root: string;
  /** Entries below the root (files, directories, symlinks). */
  entries: number;
  flatDir?: string;
  /** Seconds spent generating (0 when reused). */
  generatedSec: number;
}

export const TREE_SPECS: Record<'small' | 'medium' | 'large', TreeSpec> = {
  small: { name: 'tree-10k', target: 10_000, seed: 10, flat: 0 },
  medium: { name: 'tree-300k', target: 300_000, seed: 300, flat: 50_000 },
  large: { name: 'tree-1m', target: 1_000_000, seed: 1000, flat: 50_000 },
};

export function benchDir(): string {
  return process.env.FLEETLS_BENCH_DIR ?? path.join(os.tmpdir(), 'fleetls-bench');
}

/** mulberry32: small, fast, deterministic. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const EXT = [
  '.ts',
  '.js',
  '.json',
  '.md',
  '.log',
  '.txt',
  '.png',
  '.jpg',
  '.tar.gz',
  '.so',
  '.py',
  '.go',
  '.c',
  '.h',
  '',
];
const WORDS = [
  'alpha',
  'build',
  'cache',
  'data',
  'engine',
  'fixture',
  'gamma',
  'handler',
  'index',
  'journal',
  'kernel',
  'logs',
  'module',
  'node',
  'output',
  'packet',
  'query',
  'report',
  'store',
  'temp',
  'util',
  'vendor',
  'worker',
  'xfer',
  'yield',
  'zone',
  'Résumé',
  'データ',
];
/** 2026-01-01T00:00:00Z: mtimes go back from here, never from "now", so trees are identical. */
const EPOCH_END = 1_767_225_600;
const THREE_YEARS = 3 * 365 * 86_400;

class Builder {
  entries = 0;
  readonly rnd: () => number;
  private readonly dirs: { p: string; mtime: number }[] = [];
  constructor(seed: number) {
    this.rnd = prng(seed);
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.rnd() * (hi - lo + 1));
  }
  pick<T>(a: readonly T[]): T {
    return a[Math.floor(this.rnd() * a.length)];
  }
  mtime(): number {
    return EPOCH_END - Math.floor(this.rnd() * THREE_YEARS) + this.rnd();
  }
  size(): number {
    const r = this.rnd();
    if (r < 0.0005) return this.int(1, 8) * 1024 ** 3 + this.int(0, 1 << 20); // sparse multi-GB
    if (r < 0.05) return 0;
    // log-normal around ~4 KiB
    const u1 = Math.max(this.rnd(), 1e-9);
    const u2 = this.rnd();
    const n = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    return Math.min(Math.floor(Math.exp(8.3 + 2.2 * n)), 512 * 1024 ** 2);
  }
  name(i: number): string {
    return `${this.pick(WORDS)}-${i.toString(36)}${this.pick(EXT)}`;
  }
  mkdir(p: string | Buffer): void {
    fs.mkdirSync(p);
    this.dirs.push({ p: typeof p === 'string' ? p : p.toString('latin1'), mtime: this.mtime() });
    this.entries++;
  }
  file(p: string | Buffer, size = this.size()): void {
    const fd = fs.openSync(p, 'w', 0o644);
    try {
      if (size > 0) fs.ftruncateSync(fd, size);
      const t = this.mtime();
      fs.futimesSync(fd, t, t);
    } finally {
      fs.closeSync(fd);
    }
    this.entries++;
  }
  symlink(target: string, p: string): void {
    fs.symlinkSync(target, p);
    const t = this.mtime();
    fs.lutimesSync(p, t, t);
    this.entries++;
  }
  /** Directory mtimes last: creating children changes them. Deepest first. */
  finishDirs(): void {
    for (let i = this.dirs.length - 1; i >= 0; i--) {
      const d = this.dirs[i];
      fs.utimesSync(d.p, d.mtime, d.mtime);
    }
  }
}

function build(spec: TreeSpec, root: string): number {
  const b = new Builder(spec.seed);
  fs.mkdirSync(root, { recursive: true });
  if (spec.flat > 0) {
    const flat = path.join(root, 'flat');
    b.mkdir(flat);
    for (let i = 0; i < spec.flat; i++)
      b.file(path.join(flat, `f${String(i).padStart(6, '0')}-${b.pick(WORDS)}${b.pick(EXT)}`));
  }
  // deep chain
  let d = path.join(root, 'deep');
  b.mkdir(d);
  for (let lvl = 1; lvl <= 40; lvl++) {
    d = path.join(d, `level-${lvl}`);
    b.mkdir(d);
    for (let i = 0; i < 3; i++) b.file(path.join(d, b.name(i)));
  }
  // one name that is not valid UTF-8 (a file; bytes 0xff 0xfe)
  b.file(Buffer.concat([Buffer.from(`${d}/bad-`), Buffer.from([0xff, 0xfe]), Buffer.from('.bin')]));
  // hidden
  const hidden = path.join(root, '.cache');
  b.mkdir(hidden);
  for (let i = 0; i < 40; i++) b.file(path.join(hidden, `.${b.name(i)}`));
  // projects (filled below), links last so they can point into it
  const projects = path.join(root, 'projects');
  b.mkdir(projects);
  const linkBudget = 100;
  const reserve = linkBudget + 1;
  const queue: { p: string; depth: number }[] = [];
  let top = 0;
  const addTop = () => {
    const p = path.join(projects, `project-${String(top++).padStart(4, '0')}`);
    b.mkdir(p);
    queue.push({ p, depth: 1 });
  };
  const linkTargets: string[] = [];
  while (b.entries < spec.target - reserve) {
    if (queue.length === 0 || (b.rnd() < 0.02 && top < 400)) addTop();
    // take from the front mostly (breadth), sometimes from the back (depth)
    const item = b.rnd() < 0.7 ? queue.shift()! : queue.pop()!;
    const files = b.int(2, 60);
    for (let i = 0; i < files && b.entries < spec.target - reserve; i++) b.file(path.join(item.p, b.name(i)));
    const subdirs = item.depth >= 9 ? 0 : b.int(0, 7);
    for (let i = 0; i < subdirs && b.entries < spec.target - reserve; i++) {
      const p = path.join(item.p, `${b.pick(WORDS)}-d${i}`);
      b.mkdir(p);
      queue.push({ p, depth: item.depth + 1 });
      if (linkTargets.length < 50 && b.rnd() < 0.05) linkTargets.push(p);
    }
  }
  const links = path.join(root, 'links');
  b.mkdir(links);
  for (let i = 0; i < linkBudget - 1; i++) {
    const t = linkTargets.length > 0 && i % 2 === 0 ? b.pick(linkTargets) : path.join(root, 'deep', 'level-1');
    b.symlink(path.relative(links, t), path.join(links, `link-${i}`));
  }
  b.symlink('does-not-exist', path.join(links, 'dangling'));
  b.finishDirs();
  return b.entries;
}

interface Marker {
  format: number;
  spec: TreeSpec;
  entries: number;
}

/** The tree of `spec`, reused if a marker says it was built by this generator. */
export function ensureTree(spec: TreeSpec, log: (s: string) => void = () => {}): Tree {
  const dir = benchDir();
  fs.mkdirSync(dir, { recursive: true });
  const root = path.join(dir, spec.name);
  const markerFile = path.join(dir, `${spec.name}.json`);
  const flatDir = spec.flat > 0 ? path.join(root, 'flat') : undefined;
  try {
    const m = JSON.parse(fs.readFileSync(markerFile, 'utf8')) as Marker;
    if (m.format === TREE_FORMAT && JSON.stringify(m.spec) === JSON.stringify(spec) && fs.existsSync(root)) {
      return { spec, root, entries: m.entries, flatDir, generatedSec: 0 };
    }
  } catch {
    // no marker: build
  }
  log(`generating ${spec.name} (~${spec.target} entries) in ${root}`);
  fs.rmSync(markerFile, { force: true });
  fs.rmSync(root, { recursive: true, force: true });
  const scratch = `${root}.building`;
  fs.rmSync(scratch, { recursive: true, force: true });
  const t0 = performance.now();
  // Build under the final name's sibling, then rename: symlinks are relative, so they survive.
  const entries = build(spec, scratch);
  fs.renameSync(scratch, root);
  const generatedSec = (performance.now() - t0) / 1000;
  fs.writeFileSync(markerFile, JSON.stringify({ format: TREE_FORMAT, spec, entries } satisfies Marker));
  log(`generated ${spec.name}: ${entries} entries in ${generatedSec.toFixed(1)} s`);
  return { spec, root, entries, flatDir, generatedSec };
}
