// The bench's command line. Unknown flags and unknown sections are refused, not ignored.
import * as path from 'node:path';
import { parseArgs } from 'node:util';

export interface BenchArgs {
  /** Also the ~1M-entry tree. */
  full: boolean;
  /** Timed runs after the warm-up. */
  runs: number;
  /** Sections to run, in registry order. */
  only: string[];
  /** Agent counts of the fan-out section. */
  fanout: number[];
  /** Simulated host identities of the nats section. */
  natsHosts: number;
  /** Where results/<section>.md and RESULTS.md go. */
  out: string;
  /** Run no section: only rebuild RESULTS.md from the section files. */
  assemble: boolean;
}

export const USAGE = `usage: node bench/dist/main.js [--assemble] [--full] [--only a,b] [--runs N] [--fanout 1,10,50,200] [--nats-hosts N] [--out DIR]
  --full      also the ~1M-entry tree (or FLEETLS_BENCH_FULL=1)
  --only      sections to run (default: all)
  --runs      timed runs after one warm-up (default 5)
  --fanout    agent counts for the fan-out section (default 1,10,50,200)
  --nats-hosts simulated hosts of the nats section (default 100000)
  --out       directory for results/<section>.md and RESULTS.md (default: bench/)
  --assemble  run nothing: rebuild RESULTS.md from results/*.md (after a merge)`;

/** A bad command line: the message names the flag; main prints it with the usage. */
export class UsageError extends Error {}

function positiveInts(flag: string, value: string): number[] {
  const xs = value.split(',').map((s) => Number(s.trim()));
  if (xs.length === 0 || xs.some((x) => !Number.isInteger(x) || x < 1))
    throw new UsageError(`--${flag} takes positive integers separated by commas, got '${value}'`);
  return xs;
}

/** The nats section names its hosts with 5 digits and splits them in halves of whole thousands. */
function natsHosts(value: string): number {
  const [n] = positiveInts('nats-hosts', value);
  if (n % 2000 !== 0 || n < 4000 || n > 100_000)
    throw new UsageError(`--nats-hosts takes a multiple of 2000 in 4000..100000, got '${value}'`);
  return n;
}

function parseOptions(argv: string[], defaultOut: string) {
  return parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      full: { type: 'boolean', default: false },
      only: { type: 'string' },
      runs: { type: 'string', default: '5' },
      fanout: { type: 'string', default: '1,10,50,200' },
      'nats-hosts': { type: 'string', default: '100000' },
      out: { type: 'string', default: defaultOut },
      assemble: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
}

export function parseBenchArgs(argv: string[], sections: readonly string[], defaultOut: string): BenchArgs {
  let parsed: ReturnType<typeof parseOptions>;
  try {
    parsed = parseOptions(argv, defaultOut);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values } = parsed;
  if (values.help) throw new UsageError('');
  if (values.assemble && values.only !== undefined) throw new UsageError('--assemble runs no section: drop --only');
  const only = values.only === undefined ? [...sections] : values.only.split(',').map((s) => s.trim());
  const unknown = only.filter((s) => !sections.includes(s));
  if (unknown.length > 0 || only.length === 0)
    throw new UsageError(`--only takes sections among ${sections.join(', ')}; unknown: '${unknown.join(',')}'`);
  const [runs] = positiveInts('runs', values.runs);
  return {
    full: values.full || process.env.FLEETLS_BENCH_FULL === '1',
    runs,
    only: sections.filter((s) => only.includes(s)),
    fanout: positiveInts('fanout', values.fanout),
    natsHosts: natsHosts(values['nats-hosts']),
    out: path.resolve(values.out),
    assemble: values.assemble,
  };
}
