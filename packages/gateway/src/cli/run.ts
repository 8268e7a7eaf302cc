// The `fleetls` command line: ls, tree, stat, hosts for people (and --json for scripts),
// serve for MCP clients. Everything process-bound (argv, streams, signals, exit) comes in
// through CliIo, so tests run it in-process; main.ts wires it to the real process.
import { FleetError, type HostStatus } from '@fleetls/core';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { type LoadedFleet, loadFleet } from '../fleet.js';
import { createLogger, type Logger } from '../logger.js';
import { type GatewayOptions, resolveGatewayOptions } from '../options.js';
import type { QueryContext, QueryResult } from '../queries/common.js';
import { listDirectory } from '../queries/list-directory.js';
import { listFiles } from '../queries/list-files.js';
import { listHosts } from '../queries/list-hosts.js';
import { statPaths } from '../queries/stat.js';
import {
  type FileItem,
  formatFailures,
  formatFileTable,
  formatHosts,
  formatStat,
  formatTree,
  type HostItem,
  type HostStatusRow,
  pickStyle,
  progressLine,
  type StatItem,
  type Style,
  type TreeItem,
} from './format.js';
import type { ServeFlags } from './serve.js';
import { parseTarget } from './target.js';

export const EXIT_OK = 0;
/** A host failed, or the command failed at run time. */
export const EXIT_FAILURE = 1;
/** Bad arguments, flags or inventory: nothing was asked of any host. */
export const EXIT_USAGE = 2;

export interface OutStream {
  write(s: string): unknown;
  isTTY?: boolean;
}

export interface CliIo {
  /** Arguments after the program name. */
  argv: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdout: OutStream;
  stderr: OutStream;
  /** Aborts in-flight host calls (Ctrl-C). */
  signal?: AbortSignal;
  /** `serve` runs until this resolves (SIGINT/SIGTERM). */
  untilShutdown?: () => Promise<void>;
  version?: string;
  /** Replaces the stderr JSON logger (tests). */
  logger?: Logger;
}

interface GlobalFlags {
  inventory?: string;
  logLevel?: string;
  concurrency?: number;
  deadlineMs?: number;
  connectTimeoutMs?: number;
  maxAnswerBytes?: number;
}

/** Commander's own checks raise this code so that they exit 2 like ours. */
function intFlag(name: string, min = 0) {
  return (v: string): number => {
    if (!/^\d+$/.test(v) || Number(v) < min) {
      throw new InvalidArgumentError(`${name} expects an integer${min > 0 ? ` ≥ ${min}` : ''}, got '${v}'`);
    }
    return Number(v);
  };
}

/** Names the flag the way the user typed it: "top_n must be…" → "--top-n must be…". */
export function cliWording(message: string): string {
  return message
    .replace(/\b(order_by|top_n|max_depth|start_index|max_items_per_dir)\b/g, (m) => `--${m.replace(/_/g, '-')}`)
    .replace(/\b(limit|depth|pattern|type|cursor|sort)\b(?= must)/g, '--$1')
    .replace(/^host(?=[: ])/, 'SELECTOR')
    .replace(/^path(?=[: ])/, 'PATH');
}

export async function runCli(io: CliIo): Promise<number> {
  let exitCode = EXIT_OK;
  const style = pickStyle(io.stdout.isTTY, io.env);
  const errStyle = pickStyle(io.stderr.isTTY, io.env);
  const out = (lines: string[]) => {
    if (lines.length > 0) io.stdout.write(`${lines.join('\n')}\n`);
  };
  const err = (line: string) => io.stderr.write(`${line}\n`);

  const program = new Command('fleetls')
    .description('List directories across a fleet of Linux hosts (CLI and MCP server)')
    .version(io.version ?? '0.0.0', '-V, --version')
    .option(
      '--inventory <file>',
      'inventory YAML (default: $FLEETLS_INVENTORY, else ./fleetls.yaml; none = localhost only)',
    )
    .option('--log-level <level>', 'JSON log level on stderr (default: warn; info for serve)')
    .option('--concurrency <n>', 'hosts asked at once (default 32)', intFlag('--concurrency', 1))
    .option('--deadline-ms <ms>', "one host's budget per call (default 20000)", intFlag('--deadline-ms', 1))
    .option('--connect-timeout-ms <ms>', 'connecting to one host (default 3000)', intFlag('--connect-timeout-ms', 1))
    .option('--max-answer-bytes <n>', 'text of one answer at most (default 262144)', intFlag('--max-answer-bytes', 1))
    .showHelpAfterError('(run fleetls --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    });

  /**
   * The global flags, a logger (at `defaultLevel` unless --log-level or $FLEETLS_LOG_LEVEL say)
   * and the fleet they load; the caller closes the fleet.
   */
  const openFleet = async (cmd: Command, defaultLevel: string) => {
    const g = cmd.optsWithGlobals() as GlobalFlags;
    const logger =
      io.logger ?? createLogger({ name: 'fleetls', level: g.logLevel ?? io.env.FLEETLS_LOG_LEVEL ?? defaultLevel });
    const fleet = await loadFleet({
      inventoryPath: g.inventory,
      env: io.env,
      cwd: io.cwd,
      logger,
      connectTimeoutMs: g.connectTimeoutMs,
    });
    return { g, logger, fleet };
  };

  /** Loads the fleet, runs one query with a progress line, prints, closes the fleet. */
  const withFleet = async (
    cmd: Command,
    run: (ctx: QueryContext, fleet: LoadedFleet) => Promise<QueryResult<unknown>>,
    render: (structured: unknown, style: Style) => string[],
    statuses: (structured: unknown) => HostStatusRow[],
    json: boolean,
  ): Promise<void> => {
    const { g, fleet } = await openFleet(cmd, 'warn');
    try {
      const options = gatewayOptions(fleet, g);
      const progress = io.stderr.isTTY === true && !json;
      const ctx: QueryContext = {
        fleet,
        options,
        signal: io.signal ?? new AbortController().signal,
        onProgress: progress
          ? (done: number, total: number, s: HostStatus) =>
              io.stderr.write(`\r\x1b[2K${progressLine(done, total, { host: s.host, status: s.status })}`)
          : undefined,
      };
      let result: QueryResult<unknown>;
      try {
        result = await run(ctx, fleet);
      } finally {
        if (progress) io.stderr.write('\r\x1b[2K');
      }
      if (json) io.stdout.write(`${JSON.stringify(result.structured, null, 2)}\n`);
      else out(render(result.structured, style));
      const rows = statuses(result.structured);
      for (const line of formatFailures(rows, errStyle)) err(line);
      if (rows.some((r) => r.status !== 'ok')) exitCode = EXIT_FAILURE;
    } finally {
      await fleet.close();
    }
  };

  const jsonOption = new Option('--json', 'print the structured answer as JSON');
  const hostsOf = (s: unknown) => (s as { hosts: HostStatusRow[] }).hosts;

  program
    .command('ls')
    .description('list files (ranked, paged) under PATH on the selected hosts')
    .argument('<SELECTOR:PATH>', 'hosts and absolute path, e.g. localhost:/var/log, web-*:/etc, @prod:/srv')
    .addOption(new Option('--order-by <key>', 'sort key').choices(['name', 'size', 'modified']))
    .addOption(new Option('--sort <direction>', 'sort direction').choices(['ascending', 'descending']))
    .option('--desc', 'same as --sort descending')
    .option('--top-n <n>', 'keep only the first N of the merged order (1-1000)', intFlag('--top-n'))
    .option('--max-depth <n>', 'levels below PATH (0 = its own entries, at most 10)', intFlag('--max-depth'))
    .option('--pattern <glob>', 'glob over the path relative to PATH')
    .addOption(new Option('--type <type>', 'rows of this type').choices(['file', 'directory', 'symlink', 'any']))
    .option('--limit <n>', 'rows in this page (default 200, at most 5000)', intFlag('--limit'))
    .option('--start-index <n>', 'rows skipped before this page', intFlag('--start-index'))
    .option('--cursor <cursor>', 'next_cursor of the previous page')
    .addOption(jsonOption)
    .action(async (target: string, o: Record<string, unknown>, cmd: Command) => {
      const { selector, path } = parseTarget(target);
      const args = compact({
        host: selector,
        path,
        order_by: o.orderBy,
        sort: o.desc ? 'descending' : o.sort,
        top_n: o.topN,
        max_depth: o.maxDepth,
        pattern: o.pattern,
        type: o.type,
        limit: o.limit,
        start_index: o.startIndex,
        cursor: o.cursor,
      });
      await withFleet(
        cmd,
        (ctx) => listFiles(ctx, args),
        (s, st) => {
          const a = s as { items: FileItem[]; result: string; next_cursor?: string; hosts: HostStatusRow[] };
          const lines = formatFileTable(a.items, { showHost: a.hosts.length > 1, style: st });
          const footer = a.result.split('\n').find((l) => /showing/i.test(l));
          if (footer) err(errStyle.dim(footer));
          if (a.next_cursor) err(errStyle.dim(`more: --cursor ${a.next_cursor}`));
          return lines;
        },
        hostsOf,
        o.json === true,
      );
    });

  program
    .command('tree')
    .description('show the directory tree under PATH on the selected hosts')
    .argument('<SELECTOR:PATH>', 'hosts and absolute path, e.g. localhost:/etc')
    .option('--depth <n>', 'levels listed (1 = the entries of PATH; default 2, at most 10)', intFlag('--depth'))
    .option(
      '--max-items-per-dir <n>',
      'entries shown per nested directory (default 100)',
      intFlag('--max-items-per-dir'),
    )
    .option('--cursor <cursor>', 'next_cursor of the previous page')
    .addOption(jsonOption)
    .action(async (target: string, o: Record<string, unknown>, cmd: Command) => {
      const { selector, path } = parseTarget(target);
      const args = compact({
        host: selector,
        path,
        depth: o.depth,
        max_items_per_dir: o.maxItemsPerDir,
        cursor: o.cursor,
      });
      await withFleet(
        cmd,
        (ctx) => listDirectory(ctx, args),
        (s, st) => {
          const a = s as {
            path: string;
            entries: TreeItem[];
            truncations: { host: string; reason: string; shown: number; total: number }[];
            next_cursor?: string;
            hosts: HostStatusRow[];
          };
          const ok = a.hosts.filter((h) => h.status === 'ok').length;
          const lines = formatTree(a.entries, { root: a.path, showHost: a.hosts.length > 1, style: st });
          if (lines.length === 0 && ok > 0) lines.push(st.bold(a.path));
          for (const t of a.truncations) {
            if (t.reason !== 'items_per_dir') {
              const who = t.host ? `${t.host}: ` : '';
              const hint = t.reason === 'bytes' ? ' (raise --max-answer-bytes)' : '';
              err(errStyle.warn(`fleetls: ${who}listing cut (${t.reason}): showing ${t.shown} of ${t.total}${hint}`));
            }
          }
          if (a.next_cursor) err(errStyle.dim(`more: --cursor ${a.next_cursor}`));
          return lines;
        },
        hostsOf,
        o.json === true,
      );
    });

  program
    .command('stat')
    .description('describe PATH on the selected hosts')
    .argument('<SELECTOR:PATH>', 'hosts and absolute path, e.g. web-1:/etc/passwd')
    .addOption(jsonOption)
    .action(async (target: string, o: Record<string, unknown>, cmd: Command) => {
      const { selector, path } = parseTarget(target);
      await withFleet(
        cmd,
        (ctx) => statPaths(ctx, { host: selector, path }),
        (s, st) => {
          const a = s as { results: StatItem[]; hosts: HostStatusRow[] };
          return formatStat(a.results, { showHost: a.hosts.length > 1, style: st });
        },
        hostsOf,
        o.json === true,
      );
    });

  program
    .command('hosts')
    .description('list the hosts of the inventory (with --check: reachability and agent version)')
    .argument('[SELECTOR]', 'which hosts (default all)')
    .option('--check', 'probe each host in parallel')
    .addOption(jsonOption)
    .action(async (selector: string | undefined, o: Record<string, unknown>, cmd: Command) => {
      await withFleet(
        cmd,
        (ctx) => listHosts(ctx, compact({ host: selector, check: o.check === true ? true : undefined })),
        (s, st) => {
          const a = s as { hosts: HostItem[]; checked: boolean };
          return formatHosts(a.hosts, { checked: a.checked, style: st });
        },
        (s) => {
          const a = s as { hosts: HostItem[] };
          return a.hosts
            .filter((h) => h.status !== undefined)
            .map((h) => ({
              host: h.host,
              status: h.status!,
              via: h.via ?? h.transport,
              elapsed_ms: h.elapsed_ms ?? 0,
              message: h.message,
            }));
        },
        o.json === true,
      );
    });

  program
    .command('serve')
    .description('MCP server: stdio by default, or Streamable HTTP at /mcp with --http')
    .option('--http <host:port>', 'serve Streamable HTTP (stateless) on this address, e.g. 127.0.0.1:8765')
    .option('--token-file <file>', 'bearer token HTTP clients must send (or $FLEETLS_TOKEN)')
    .action(async (o: ServeFlags, cmd: Command) => {
      const { g, logger, fleet } = await openFleet(cmd, 'info');
      try {
        // The MCP SDK loads only for `serve`.
        const { runServe } = await import('./serve.js');
        await runServe({ flags: o, fleet, logger, options: gatewayOptions(fleet, g), io });
      } finally {
        await fleet.close();
      }
    });

  try {
    await program.parseAsync(io.argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) {
      // Help and version exit 0; every parse error (already printed by commander) is a usage error.
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') {
        return EXIT_OK;
      }
      return EXIT_USAGE;
    }
    const fe = FleetError.from(e);
    if (fe.code === 'invalid_argument') {
      err(errStyle.error(`fleetls: ${cliWording(fe.message)}`));
      return EXIT_USAGE;
    }
    err(errStyle.error(`fleetls: ${fe.message}`));
    return EXIT_FAILURE;
  }
  return exitCode;
}

function gatewayOptions(fleet: LoadedFleet, g: GlobalFlags): GatewayOptions {
  try {
    return resolveGatewayOptions({
      ...fleet.inventory?.defaults,
      ...compact({
        concurrency: g.concurrency,
        deadlineMs: g.deadlineMs,
        connectTimeoutMs: g.connectTimeoutMs,
        maxAnswerBytes: g.maxAnswerBytes,
      }),
    });
  } catch (e) {
    throw new FleetError('invalid_argument', (e as Error).message);
  }
}

/** Drops undefined values, so the query's own defaults apply. */
function compact<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
