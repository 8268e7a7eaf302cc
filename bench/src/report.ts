// What a section found, as markdown. Each section writes its own results/<section>.md, so
// engineers can each re-run and commit one section; RESULTS.md is assembled from the
// machine info of the run that assembles it and every section file there is.
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface Table {
  title: string;
  intro?: string;
  header: string[];
  rows: string[][];
}

export interface Target {
  name: string;
  measured: string;
  ok: boolean | undefined;
}

export const verdict = (ok: boolean | undefined): string => (ok === undefined ? '– not measured' : ok ? '✅' : '❌');
export const ratio = (x: number): string => (Number.isFinite(x) ? `${x.toFixed(2)}×` : '–');

const TARGETS_BEGIN = '<!-- targets -->';
const TARGETS_END = '<!-- /targets -->';

function tableLines(header: string[], rows: string[][]): string[] {
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`),
  ];
}

export class SectionReport {
  readonly tables: Table[] = [];
  readonly targets: Target[] = [];
  readonly notes: string[] = [];

  constructor(private readonly log: (s: string) => void) {}

  /** Adds a table; rows pushed later still show, so a section cut short keeps what it measured. */
  table(t: Table): Table {
    this.tables.push(t);
    return t;
  }

  target(name: string, measured: string, ok: boolean | undefined): void {
    this.targets.push({ name, measured, ok });
    this.log(`target ${verdict(ok)} ${name}: ${measured}`);
  }

  note(s: string): void {
    this.notes.push(s);
  }

  /** The section file: a heading, how and where it was measured, its targets, tables and notes. */
  markdown(section: string, measuredOn: string): string {
    const out = [`## ${section}`, '', measuredOn, ''];
    if (this.targets.length > 0) {
      out.push(TARGETS_BEGIN, ...tableLines(['Target', 'Measured', 'Met'], this.targetRows()), TARGETS_END, '');
    }
    for (const t of this.tables) {
      out.push(`### ${t.title}`, '');
      if (t.intro) out.push(t.intro, '');
      out.push(...tableLines(t.header, t.rows), '');
    }
    if (this.notes.length > 0) out.push('### Notes', '', ...this.notes.map((n) => `- ${n}`), '');
    return out.join('\n');
  }

  private targetRows(): string[][] {
    return this.targets.map((t) => [t.name, t.measured, verdict(t.ok)]);
  }
}

export const sectionFile = (outDir: string, section: string): string => path.join(outDir, 'results', `${section}.md`);

/** RESULTS.md: a header (machine, trees), every section's targets in one table, then each section file. */
export function assembleResults(outDir: string, sections: readonly string[], head: string[]): string {
  const bodies: string[] = [];
  const targetRows: string[] = [];
  const missing: string[] = [];
  for (const s of sections) {
    const file = sectionFile(outDir, s);
    if (!fs.existsSync(file)) {
      missing.push(s);
      continue;
    }
    const text = fs.readFileSync(file, 'utf8');
    bodies.push(text.trimEnd(), '');
    const begin = text.indexOf(TARGETS_BEGIN);
    const end = text.indexOf(TARGETS_END);
    if (begin >= 0 && end > begin)
      targetRows.push(
        ...text
          .slice(begin + TARGETS_BEGIN.length, end)
          .trim()
          .split('\n')
          .slice(2)
          .map((row) => `| ${s} ${row}`),
      );
  }
  const out = [...head];
  out.push('## Targets', '', '| Section | Target | Measured | Met |', '|---|---|---|---|', ...targetRows, '');
  if (missing.length > 0) out.push(`Sections not measured yet (no results file): ${missing.join(', ')}.`, '');
  out.push(...bodies);
  return out.join('\n');
}
