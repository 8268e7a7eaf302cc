// What a section gets: the arguments, its own report, trees made on first use, a scratch
// directory, and the log. A section is a file in sections/ exporting `name`, `limitMs`
// and `run(ctx)`, listed once in sections/index.ts.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { BenchArgs } from './args.js';
import { sh } from './helpers/proc.js';
import type { SectionReport } from './report.js';
import { ensureTree, TREE_SPECS, type Tree } from './trees.js';

export type TreeName = keyof typeof TREE_SPECS;

export interface BenchContext {
  args: BenchArgs;
  report: SectionReport;
  log(s: string): void;
  /** A generated tree (made or reused on first use, its page cache warmed once). */
  tree(name: TreeName): Promise<Tree>;
  /** A fresh directory under this run's scratch directory. */
  home(name: string): string;
  scratch: string;
}

export interface Section {
  name: string;
  limitMs(args: BenchArgs): number;
  run(ctx: BenchContext): Promise<void>;
}

export const log = (s: string): void => {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${s}\n`);
};

/** Trees shared by every section of a run; each is generated (or checked) and warmed once. */
export class Trees {
  readonly used = new Map<TreeName, Tree>();

  async get(name: TreeName): Promise<Tree> {
    let t = this.used.get(name);
    if (!t) {
      t = ensureTree(TREE_SPECS[name], log);
      // warm the page cache once so the first measured tool does not pay for it
      await sh(`find '${t.root}' > /dev/null`, { timeoutMs: 300_000 });
      this.used.set(name, t);
    }
    return t;
  }
}

export function homeIn(scratch: string): (name: string) => string {
  return (name) => {
    const d = path.join(scratch, name);
    fs.mkdirSync(d, { recursive: true });
    return d;
  };
}
