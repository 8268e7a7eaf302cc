// The global flags of `fleetls` (before the verb) and what they open: the logger, the fleet
// and the gateway options every verb runs with.
import { DEFAULT_MAX_ANSWER_BYTES, type Observer } from '@fleetls/core';
import type { Command } from 'commander';
import type { LoadedFleet } from '../../fleet/fleet.js';
import type { GatewayOptions } from '../../fleet/options.js';
import type { GatewayNatsSettings } from '../../inventory/nats.js';
import type { Logger } from '../../logger.js';
import { FleetlsCommand } from './command.js';
import { intFlag } from './flags.js';
import type { CliIo } from './io.js';

export interface GlobalFlags {
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

/** Examples and exit codes, after the commands in `fleetls --help` (and in the man page, faces/cli/man.ts). */
export const EXAMPLES: readonly [string, string][] = [
  ['fleetls tree localhost:/etc --depth 1', 'this machine, no inventory or daemon'],
  ["fleetls ls 'web-*:/var/log' --order-by size --desc --top-n 10", 'the ten largest, over the web hosts'],
  ['fleetls du @prod:/srv --depth 2', 'where the space goes, per host'],
  ['fleetls diff all:/etc/nginx', 'which hosts differ from the others'],
  ['fleetls hosts --check', 'the inventory, each host probed'],
];
export const EXIT_CODES: readonly [number, string][] = [
  [0, 'every host answered and every path was listed'],
  [1, 'some host or path failed (the rest is printed)'],
  [2, 'usage: a bad argument, flag or inventory; nothing was asked of any host'],
];
const HELP_AFTER = [
  '',
  'Examples:',
  ...EXAMPLES.map(([cmd, what]) => `  ${cmd}\n      ${what}`),
  '',
  'Exit status:',
  ...EXIT_CODES.map(([code, what]) => `  ${code}  ${what}`),
].join('\n');

/** The `fleetls` command with its global flags, writing to `io` and throwing instead of exiting. */
export function globalProgram(io: CliIo): FleetlsCommand {
  return new FleetlsCommand('fleetls')
    .description('List directories across a fleet of Linux hosts (CLI and MCP server)')
    .version(io.version ?? '0.0.0', '-V, --version')
    .option(
      '--inventory <file>',
      "inventory YAML (default: $FLEETLS_INVENTORY, else ./fleetls.yaml, else the gateway package's /etc/fleetls/gateway.yaml; none = localhost only)",
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
      `one whole MCP answer (text and structured rows) at most (default ${DEFAULT_MAX_ANSWER_BYTES})`,
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
    .addHelpText('after', HELP_AFTER)
    .showHelpAfterError('(run fleetls --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    });
}

/** A logger at `defaultLevel` unless --log-level or $FLEETLS_LOG_LEVEL say otherwise. */
export async function loggerOf(io: CliIo, globals: GlobalFlags, defaultLevel: string): Promise<Logger> {
  if (io.logger) return io.logger;
  const { createLogger } = await import('../../logger.js');
  return createLogger({ name: 'fleetls', level: globals.logLevel ?? io.env.FLEETLS_LOG_LEVEL ?? defaultLevel });
}

/** The fleet of the global flags (the inventory, --nats); the caller closes it. */
export async function fleetOf(
  io: CliIo,
  globals: GlobalFlags,
  logger: Logger,
  observer?: Observer,
  localAllow?: string[],
): Promise<LoadedFleet> {
  return (await import('../../fleet/fleet.js')).loadFleet({
    inventoryPath: globals.inventory,
    env: io.env,
    cwd: io.cwd,
    logger,
    connectTimeoutMs: globals.connectTimeoutMs,
    observer,
    nats: await natsFlags(globals),
    localAllow,
  });
}

/** The global flags of `cmd`, a logger and the fleet they load; the caller closes the fleet. */
export async function openFleet(io: CliIo, cmd: Command, defaultLevel: string, observer?: Observer) {
  const given = cmd.optsWithGlobals() as GlobalFlags;
  const { cliInventoryPath } = await import('../../inventory/path.js');
  // On a gateway host, the installed gateway's inventory when nothing else names one.
  const g = { ...given, inventory: cliInventoryPath({ inventoryPath: given.inventory, env: io.env, cwd: io.cwd }) };
  const logger = await loggerOf(io, g, defaultLevel);
  return { g, logger, fleet: await fleetOf(io, g, logger, observer) };
}

export async function gatewayOptions(fleet: LoadedFleet, globals: GlobalFlags): Promise<GatewayOptions> {
  const [{ FleetError }, { resolveGatewayOptions }] = await Promise.all([
    import('@fleetls/core'),
    import('../../fleet/options.js'),
  ]);
  try {
    return resolveGatewayOptions({
      ...fleet.inventory?.defaults,
      ...compact({
        concurrency: globals.concurrency,
        deadlineMs: globals.deadlineMs,
        connectTimeoutMs: globals.connectTimeoutMs,
        maxAnswerBytes: globals.maxAnswerBytes,
        maxAnswerTokens: globals.maxAnswerTokens,
      }),
    });
  } catch (e) {
    throw new FleetError('invalid_argument', (e as Error).message);
  }
}

/** Drops undefined values, so the query's own defaults apply. */
export function compact<T extends Record<string, unknown>>(record: T): Partial<T> {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** --nats and its companions → the fleet's NATS settings (the inventory's `nats:` otherwise). */
async function natsFlags(g: GlobalFlags): Promise<GatewayNatsSettings | undefined> {
  if (g.nats === undefined && [g.natsCreds, g.natsTlsCa, g.natsTlsCert, g.natsTlsKey].every((v) => v === undefined)) {
    return undefined;
  }
  const { invalidArgument } = await import('@fleetls/core');
  const { parseInventoryNats } = await import('../../inventory/nats.js');
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
