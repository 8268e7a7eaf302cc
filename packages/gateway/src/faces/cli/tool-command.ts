// One subcommand per tool of the registry with a CLI face (ls, tree, diff, du, stat, hosts):
// its flags derived from the tool's declaration (faces/cli/tool-flags.ts), --json for scripts.
import type { HostStatus } from '@fleetls/core';
import { type Command, Option } from 'commander';
import type { FileListing } from '../../tools/list-files/shape.js';
import type { AnyTool, CliFace, ToolContext, ToolResult } from '../../tools/tool.js';
import { gatewayOptions, openFleet } from './globals.js';
import type { CliIo } from './io.js';

/**
 * Each CLI verb's tool module, so that a known verb loads its own tool alone and not the
 * registry's eight (every tool's schemas and collectors: ~50 ms of `fleetls ls`'s start).
 * verb.test.ts checks this table against the registry's cli faces.
 */
export const VERB_TOOLS: Readonly<Record<string, () => Promise<AnyTool>>> = {
  ls: async () => (await import('../../tools/list-files/index.js')).listFilesTool,
  tree: async () => (await import('../../tools/list-directory/index.js')).listDirectoryTool,
  stat: async () => (await import('../../tools/stat/index.js')).statTool,
  hosts: async () => (await import('../../tools/list-hosts/index.js')).listHostsTool,
  diff: async () => (await import('../../tools/diff-directory/index.js')).diffDirectoryTool,
  du: async () => (await import('../../tools/disk-usage/index.js')).diskUsageTool,
};

/**
 * Adds the tools' subcommands to `program`: the one of `verb` when it is a tool's, else every
 * one (help, and the nearest verb to a mistyped one, need them all). `onFailure` runs when a
 * host of a command failed.
 */
export async function addToolCommands(
  program: Command,
  io: CliIo,
  verb: string | undefined,
  onFailure: () => void,
): Promise<void> {
  const own = verb !== undefined && Object.hasOwn(VERB_TOOLS, verb) ? VERB_TOOLS[verb] : undefined;
  const [tools, { cliWording, toolArgs, toolFlags }] = await Promise.all([
    own ? own().then((t) => [t]) : import('../../tools/registry.js').then((m) => m.TOOLS),
    import('./tool-flags.js'),
  ]);
  for (const tool of tools) {
    const face = tool.cli;
    if (!face) continue;
    const command = program
      .command(face.command)
      .description(face.description)
      .argument(face.argument.syntax, face.argument.description);
    for (const { option } of toolFlags(tool)) command.addOption(option);
    command
      .addOption(new Option('--json', 'print the structured answer as JSON'))
      .action(async (positional: string | undefined, o: Record<string, unknown>, cmd: Command) => {
        try {
          const args = toolArgs(tool, positional, o) as Record<string, unknown>;
          // `ls` shows every entry, as ls does, following the pages unless a page was asked for.
          const all = face.follows === true && o.json !== true && !PAGE_FLAGS.some((k) => o[k] !== undefined);
          if (await runToolCommand(io, tool, face, args, cmd, { json: o.json === true, all })) onFailure();
        } catch (e) {
          // A bad argument is named as the flag the user typed (tool-flags.ts).
          const { FleetError } = await import('@fleetls/core');
          const fe = FleetError.from(e);
          throw fe.code === 'invalid_argument' ? new FleetError('invalid_argument', cliWording(fe.message, tool)) : e;
        }
      });
  }
}

/** The verbs whose tool walks its hosts' directories (stat and hosts ask for no walk). */
const WALKING_VERBS: ReadonlySet<string> = new Set(['ls', 'tree', 'du', 'diff']);

/**
 * Starts the embedded agent's walk worker, not waiting for it, when `verb` walks and no
 * inventory or --nats is given or found: the fleet is then the embedded localhost alone,
 * so the command will walk in this process. The thread's start (~100 ms) then runs while
 * the tool, the fleet and the logger load, instead of after them (bench/results/
 * startup.why.md). It changes no answer: the first walk takes the started thread, an
 * unused one holds nothing open, and an --inventory or --nats anywhere in argv (even as
 * another flag's value) starts none.
 */
export function startEmbeddedWalker(io: CliIo, verb: string | undefined): void {
  if (verb === undefined || !WALKING_VERBS.has(verb)) return;
  if (io.argv.some((a) => /^--(inventory|nats)(=|$)/.test(a))) return;
  const start = async () => {
    const { cliInventoryPath } = await import('../../inventory/path.js');
    if (cliInventoryPath({ inventoryPath: undefined, env: io.env, cwd: io.cwd }) !== undefined) return;
    (await import('@fleetls/agent/embedded')).startSpareWorker();
  };
  // A failure here is the walk's own to meet and report, where it happens again.
  start().catch(() => {});
}

/** The flags that ask for one page (commander's attribute names): with any of them `ls` prints that page alone. */
const PAGE_FLAGS = ['limit', 'cursor', 'startIndex'];

/**
 * Loads the fleet, runs one tool with a progress line, prints its result, closes the fleet;
 * true if a host or a path failed. `all`: every page, followed by its cursor (ls).
 */
async function runToolCommand(
  io: CliIo,
  tool: AnyTool,
  face: CliFace<ToolResult>,
  args: Record<string, unknown>,
  cmd: Command,
  { json, all }: { json: boolean; all: boolean },
): Promise<boolean> {
  const err = (line: string) => io.stderr.write(`${line}\n`);
  const [{ runTool }, { hostStatusJson }, { formatFailures, pickStyle, progressLine }] = await Promise.all([
    import('../../tools/run-tool.js'),
    import('../../tools/shared/present.js'),
    import('../../tools/shared/cli-format.js'),
  ]);
  const style = pickStyle(io.stdout.isTTY, io.env);
  const errStyle = pickStyle(io.stderr.isTTY, io.env);
  const { g, logger, fleet } = await openFleet(io, cmd, 'warn');
  try {
    // The CLI waits for every host as a scan does (its host budget, concurrency and whole
    // deadline), up to --timeout; an MCP call stays under the client's timeout instead.
    const base = await gatewayOptions(fleet, g);
    const options = {
      ...base,
      deadlineMs: g.deadlineMs ?? base.scanHostDeadlineMs,
      concurrency: g.concurrency ?? base.scanConcurrency,
      callDeadlineMs: g.timeout !== undefined ? g.timeout * 1000 : base.scanDeadlineMs,
    };
    const progress = io.stderr.isTTY === true && !json;
    // From the start, and with the time it has taken: a long walk of one host shows it is under way (issue 40, item 9).
    const live = progress ? liveProgress(io, progressLine) : undefined;
    const ctx: ToolContext = {
      fleet,
      options,
      signal: io.signal ?? new AbortController().signal,
      audit: { logger, caller: `cli:${io.env.USER ?? io.env.LOGNAME ?? 'unknown'}` },
      // The CLI's caller is `local` of the inventory's grants file, when it has one.
      ...(fleet.inventory?.grantsFile
        ? { access: (await import('./serve-grants.js')).cliAccess(fleet.inventory.grantsFile, logger) }
        : {}),
      onProgress: progress ? (done: number, total: number, s: HostStatus) => live?.update(done, total, s) : undefined,
      onEntriesSeen: progress ? (n: number) => live?.seen(n) : undefined,
    };
    let result: ToolResult;
    try {
      if (all) {
        const [{ followPages }, { MemoryPageStore }] = await Promise.all([
          import('./follow.js'),
          import('../../fleet/page-store.js'),
        ]);
        // A ranked order's pages read the ranking the first page kept, not a walk each.
        const paged = { ...ctx, pages: fleet.pages ?? new MemoryPageStore() };
        result = await followPages(args, (a) => runTool(tool, a, paged) as Promise<FileListing>);
      } else result = await runTool(tool, args, ctx);
    } finally {
      live?.stop();
    }
    let pathFailed = false;
    if (result.narrowed && !json) err(`fleetls: ${result.narrowed}`);
    if (json) io.stdout.write(`${JSON.stringify(tool.mcp(result, ctx).structured, null, 2)}\n`);
    else {
      const { out: lines, err: notes, failed } = face.render(result, style);
      pathFailed = failed === true;
      if (lines.length > 0) io.stdout.write(`${lines.join('\n')}\n`);
      for (const line of notes) err(line);
    }
    const statuses = result.hosts.map(hostStatusJson);
    for (const line of formatFailures(statuses, errStyle)) err(line);
    return pathFailed || statuses.some((r) => r.status !== 'ok' && r.status !== 'pending');
  } finally {
    await fleet.close();
  }
}

/**
 * The progress line on a terminal: drawn at once ("asking hosts"), then as each host answers,
 * and again every half second with the entries the hosts have read so far and the time
 * taken, so that a long walk of one host is seen to move (as ncdu counts its items) and not
 * stuck. Cleared by stop().
 */
function liveProgress(
  io: CliIo,
  line: (done: number, total: number, last?: { host: string; status: string }) => string,
): { update(done: number, total: number, s: HostStatus): void; seen(entries: number): void; stop(): void } {
  const started = performance.now();
  let state: { done: number; total: number; last?: { host: string; status: string } } | undefined;
  let entries = 0;
  const draw = () => {
    const took = `${Math.floor((performance.now() - started) / 1000)} s`;
    // While hosts still walk: once every host answered, the answer itself says what was found.
    const walking = !state || state.done < state.total;
    const read = entries > 0 && walking ? ` · ${entries.toLocaleString('en-US')} entries seen` : '';
    const text = state
      ? `${line(state.done, state.total, state.last)}${read} · ${took}`
      : `asking hosts…${read} · ${took}`;
    io.stderr.write(`\r\x1b[2K${text}`);
  };
  draw();
  const timer = setInterval(draw, 500);
  timer.unref();
  return {
    update(done, total, s) {
      state = { done, total, last: { host: s.host, status: s.status } };
      draw();
    },
    // Drawn with the next half-second tick: a count that rises a thousand times a second would flood the terminal.
    seen(n) {
      entries = Math.max(entries, n);
    },
    stop() {
      clearInterval(timer);
      io.stderr.write('\r\x1b[2K');
    },
  };
}
