// The `fleetls` command line: one subcommand per tool of the registry (ls, tree, stat,
// hosts) for people, --json for scripts, and serve for MCP clients. Everything process-bound (argv, streams, signals, exit) comes in
// through CliIo, so tests run it in-process; main.ts wires it to the real process.
//
// A verb's modules load when it runs (dynamic imports): `fleetls --version` loads commander
// alone, a tool's verb the registry and the fleet, `serve` the MCP and gRPC faces.
import type { HostStatus, Observer } from '@fleetls/core';
import { type Command, CommanderError, Option } from 'commander';
import type { LoadedFleet } from '../fleet.js';
import type { GatewayNatsSettings } from '../inventory-nats.js';
import type { Logger } from '../logger.js';
import type { GatewayOptions } from '../options.js';
import type { AnyTool, CliFace, ToolContext, ToolResult } from '../tools/tool.js';
import { FleetlsCommand } from './command.js';
import { intFlag } from './flags.js';
import type { CliIo } from './io.js';
import { addPkiCommand } from './pki-command.js';
import type { ServeFlags } from './serve.js';

export type { CliIo, OutStream } from './io.js';

export const EXIT_OK = 0;
/** A host failed, or the command failed at run time. */
export const EXIT_FAILURE = 1;
/** Bad arguments, flags or inventory: nothing was asked of any host. */
export const EXIT_USAGE = 2;

interface GlobalFlags {
  inventory?: string;
  logLevel?: string;
  concurrency?: number;
  deadlineMs?: number;
  timeout?: number;
  connectTimeoutMs?: number;
  maxAnswerBytes?: number;
  maxAnswerTokens?: number;
  nats?: string;
  natsCreds?: string;
  natsTlsCa?: string;
  natsTlsCert?: string;
  natsTlsKey?: string;
}

/**
 * The verb of `argv` (its first operand past the global flags and their values), or undefined.
 * Which flags take a value is read from `program`'s own options.
 */
export function verbOf(program: Command, argv: string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') return argv[i + 1];
    if (!a.startsWith('-')) return a;
    const opt = program.options.find((o) => o.long === a || o.short === a);
    if (opt && (opt.required || opt.optional)) i++;
  }
  return undefined;
}

export async function runCli(io: CliIo): Promise<number> {
  let exitCode = EXIT_OK;
  const out = (lines: string[]) => {
    if (lines.length > 0) io.stdout.write(`${lines.join('\n')}\n`);
  };
  const err = (line: string) => io.stderr.write(`${line}\n`);

  const program = new FleetlsCommand('fleetls')
    .description('List directories across a fleet of Linux hosts (CLI and MCP server)')
    .version(io.version ?? '0.0.0', '-V, --version')
    .option(
      '--inventory <file>',
      'inventory YAML (default: $FLEETLS_INVENTORY, else ./fleetls.yaml; none = localhost only)',
    )
    .option('--log-level <level>', 'JSON log level on stderr (default: warn; info for serve)')
    .option('--concurrency <n>', 'hosts asked at once (default 32)', intFlag('--concurrency', 1))
    .option(
      '--deadline-ms <ms>',
      "one host's budget (default: 20000 for MCP calls; the CLI waits as a scan does, 120000)",
      intFlag('--deadline-ms', 1),
    )
    .option(
      '--timeout <seconds>',
      'a command waits at most this long for every host (default: the whole scan, up to 1800)',
      intFlag('--timeout', 1, 86_400),
    )
    .option('--connect-timeout-ms <ms>', 'connecting to one host (default 3000)', intFlag('--connect-timeout-ms', 1))
    .option(
      '--max-answer-bytes <n>',
      'one whole MCP answer (text and structured rows) at most (default 65536)',
      intFlag('--max-answer-bytes', 1),
    )
    .option(
      '--max-answer-tokens <n>',
      "the same answer at most in tokens, counted high (default 20000: under Claude Code's 25000)",
      intFlag('--max-answer-tokens', 1),
    )
    .option('--nats <urls>', 'NATS servers (nats://HOST:PORT,…): the agents registered there are hosts too')
    .option('--nats-creds <file>', 'NATS credentials: a .creds file or an nkey user seed')
    .option('--nats-tls-ca <file>', 'CA of the NATS servers (TLS)')
    .option('--nats-tls-cert <file>', 'client certificate for NATS (PEM)')
    .option('--nats-tls-key <file>', 'client key for NATS (PEM)')
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
  const openFleet = async (cmd: Command, defaultLevel: string, observer?: Observer) => {
    const g = cmd.optsWithGlobals() as GlobalFlags;
    const logger = await loggerOf(g, defaultLevel);
    return { g, logger, fleet: await fleetOf(g, logger, observer) };
  };
  const loggerOf = async (g: GlobalFlags, defaultLevel: string) => {
    if (io.logger) return io.logger;
    const { createLogger } = await import('../logger.js');
    return createLogger({ name: 'fleetls', level: g.logLevel ?? io.env.FLEETLS_LOG_LEVEL ?? defaultLevel });
  };
  const fleetOf = async (g: GlobalFlags, logger: Logger, observer?: Observer, localAllow?: string[]) =>
    (await import('../fleet.js')).loadFleet({
      inventoryPath: g.inventory,
      env: io.env,
      cwd: io.cwd,
      logger,
      connectTimeoutMs: g.connectTimeoutMs,
      observer,
      nats: await natsFlags(g),
      localAllow,
    });

  /** Loads the fleet, runs one tool with a progress line, prints its result, closes the fleet. */
  const runCommand = async (tool: AnyTool, face: CliFace<ToolResult>, args: unknown, cmd: Command, json: boolean) => {
    const [{ runTool }, { hostStatusJson }, { formatFailures, pickStyle, progressLine }] = await Promise.all([
      import('../tools/run-tool.js'),
      import('../tools/present.js'),
      import('./format.js'),
    ]);
    const style = pickStyle(io.stdout.isTTY, io.env);
    const errStyle = pickStyle(io.stderr.isTTY, io.env);
    const { g, logger, fleet } = await openFleet(cmd, 'warn');
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
      const ctx: ToolContext = {
        fleet,
        options,
        signal: io.signal ?? new AbortController().signal,
        audit: { logger, caller: `cli:${io.env.USER ?? io.env.LOGNAME ?? 'unknown'}` },
        onProgress: progress
          ? (done: number, total: number, s: HostStatus) =>
              io.stderr.write(`\r\x1b[2K${progressLine(done, total, { host: s.host, status: s.status })}`)
          : undefined,
      };
      let result: ToolResult;
      try {
        result = await runTool(tool, args, ctx);
      } finally {
        if (progress) io.stderr.write('\r\x1b[2K');
      }
      if (json) io.stdout.write(`${JSON.stringify(tool.mcp(result, ctx).structured, null, 2)}\n`);
      else {
        const { out: lines, err: notes } = face.render(result, style);
        out(lines);
        for (const line of notes) err(line);
      }
      const statuses = result.hosts.map(hostStatusJson);
      for (const line of formatFailures(statuses, errStyle)) err(line);
      if (statuses.some((r) => r.status !== 'ok' && r.status !== 'pending')) exitCode = EXIT_FAILURE;
    } finally {
      await fleet.close();
    }
  };

  // One subcommand per tool with a CLI face, in registry order. `--version` and `serve` need
  // none of them, so the registry (zod and every tool) is not loaded for those.
  const verb = verbOf(program, io.argv);
  const needsTools = verb === undefined ? !io.argv.some((a) => a === '-V' || a === '--version') : verb !== 'serve';
  if (needsTools) {
    const [{ TOOLS }, { cliWording, toolArgs, toolFlags }] = await Promise.all([
      import('../tools/registry.js'),
      import('../tools/cli-face.js'),
    ]);
    for (const tool of TOOLS) {
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
            await runCommand(tool, face, toolArgs(tool, positional, o), cmd, o.json === true);
          } catch (e) {
            // A bad argument is named as the flag the user typed (cli-face.ts).
            const { FleetError } = await import('@fleetls/core');
            const fe = FleetError.from(e);
            throw fe.code === 'invalid_argument' ? new FleetError('invalid_argument', cliWording(fe.message, tool)) : e;
          }
        });
    }
  }

  program
    .command('serve')
    .description('MCP server: stdio by default, or Streamable HTTP at /mcp with --http; the Fleet gRPC API with --grpc')
    .option('--http <host:port>', 'serve Streamable HTTP (stateless) on this address, e.g. 127.0.0.1:8765')
    .option('--grpc <host:port>', 'serve the Fleet gRPC API (fleetls.v1.Fleet) on this address, e.g. 127.0.0.1:8766')
    .option('--grpc-tls-cert <file>', 'TLS certificate of the gRPC server (PEM)')
    .option('--grpc-tls-key <file>', 'its private key (PEM)')
    .option('--grpc-tls-ca <file>', 'CA whose client certificates the gRPC server requires (mTLS)')
    .option(
      '--cors-origin <origin>',
      'a browser origin (besides this server) allowed to call /mcp and the Fleet API over HTTP, repeatable',
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option(
      '--allow <dir>',
      'without an inventory: a directory localhost may list (repeatable; needed with --http or --grpc; default / for stdio)',
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option('--token-file <file>', 'bearer token HTTP and gRPC clients must send (or $FLEETLS_TOKEN)')
    .option('--no-auth', 'serve --http without a bearer token (loopback addresses only; logged at start)')
    .action(async (o: ServeFlags, cmd: Command) => {
      // prom-client loads only with --http, whose /metrics is where the gateway's metrics are read.
      const metrics = o.http === undefined ? undefined : (await import('../metrics/metrics.js')).createGatewayMetrics();
      const g = cmd.optsWithGlobals() as GlobalFlags;
      const logger = await loggerOf(g, 'info');
      const { runServe } = await import('./serve.js');
      // commander names a negated flag by what it turns off: --no-auth is `auth: false`.
      const flags: ServeFlags = { ...o, noAuth: (o as { auth?: boolean }).auth === false };
      const { resolveInventoryPath } = await import('../inventory-file.js');
      const inventoryFile = resolveInventoryPath({ inventoryPath: g.inventory, env: io.env, cwd: io.cwd });
      // The inventory loads once --http listens, so /readyz can say it is waiting for it.
      const open = async (localAllow?: string[]) => {
        const fleet = await fleetOf(g, logger, metrics?.observer, localAllow);
        return { fleet, options: await gatewayOptions(fleet, g) };
      };
      await runServe({ flags, open, inventoryFile, registry: g.nats !== undefined, logger, io, metrics });
    });

  addPkiCommand(program, io);

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
    const [{ FleetError }, { pickStyle }] = await Promise.all([import('@fleetls/core'), import('./format.js')]);
    const errStyle = pickStyle(io.stderr.isTTY, io.env);
    const fe = FleetError.from(e);
    if (fe.code === 'invalid_argument') {
      err(errStyle.error(`fleetls: ${fe.message}`));
      return EXIT_USAGE;
    }
    err(errStyle.error(`fleetls: ${fe.message}`));
    return EXIT_FAILURE;
  }
  return exitCode;
}

async function gatewayOptions(fleet: LoadedFleet, g: GlobalFlags): Promise<GatewayOptions> {
  const [{ FleetError }, { resolveGatewayOptions }] = await Promise.all([
    import('@fleetls/core'),
    import('../options.js'),
  ]);
  try {
    return resolveGatewayOptions({
      ...fleet.inventory?.defaults,
      ...compact({
        concurrency: g.concurrency,
        deadlineMs: g.deadlineMs,
        connectTimeoutMs: g.connectTimeoutMs,
        maxAnswerBytes: g.maxAnswerBytes,
        maxAnswerTokens: g.maxAnswerTokens,
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

/** --nats and its companions → the fleet's NATS settings (the inventory's `nats:` otherwise). */
async function natsFlags(g: GlobalFlags): Promise<GatewayNatsSettings | undefined> {
  if (g.nats === undefined && [g.natsCreds, g.natsTlsCa, g.natsTlsCert, g.natsTlsKey].every((v) => v === undefined)) {
    return undefined;
  }
  const { invalidArgument } = await import('@fleetls/core');
  const { parseInventoryNats } = await import('../inventory-nats.js');
  const others = [g.natsCreds, g.natsTlsCa, g.natsTlsCert, g.natsTlsKey].some((v) => v !== undefined);
  if (g.nats === undefined) {
    if (others) throw invalidArgument('--nats-creds and --nats-tls-*: only with --nats');
    return undefined;
  }
  const problems: string[] = [];
  const settings = parseInventoryNats(
    {
      servers: g.nats,
      ...(g.natsCreds ? { creds: g.natsCreds } : {}),
      ...(g.natsTlsCa || g.natsTlsCert || g.natsTlsKey
        ? { tls: compact({ ca: g.natsTlsCa, cert: g.natsTlsCert, key: g.natsTlsKey }) }
        : {}),
    },
    (at, m) => problems.push(`--${at.replace('nats.servers', 'nats').replace(/\./g, '-')}: ${m}`),
    (p) => p,
  );
  if (problems.length > 0 || !settings) throw invalidArgument(problems.join('; '));
  return settings;
}
