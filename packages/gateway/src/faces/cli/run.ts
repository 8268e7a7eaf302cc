// The `fleetls` command line: one subcommand per tool of the registry (ls, tree, stat,
// hosts) for people, --json for scripts, and serve for MCP clients. Everything process-bound (argv, streams, signals, exit) comes in
// through CliIo, so tests run it in-process; main.ts wires it to the real process.
//
// A verb's modules load when it runs (dynamic imports): `fleetls --version` loads commander
// alone, a tool's verb the registry and the fleet, `serve` the MCP and gRPC faces.
import { type Command, CommanderError } from 'commander';
import { fleetOf, type GlobalFlags, gatewayOptions, globalProgram, loggerOf } from './globals.js';
import type { CliIo } from './io.js';
import { addNatsCommand } from './nats-command.js';
import { addPkiCommand } from './pki-command.js';
import type { ServeFlags } from './serve.js';

export type { CliIo, OutStream } from './io.js';

export const EXIT_OK = 0;
/** A host failed, or the command failed at run time. */
export const EXIT_FAILURE = 1;
/** Bad arguments, flags or inventory: nothing was asked of any host. */
export const EXIT_USAGE = 2;

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

/**
 * The whole `fleetls` program, every verb declared, parsing nothing: what the man page and the
 * shell completions are written from (scripts/package/docs.mjs), the same declarations as --help.
 */
export async function cliProgram(io: CliIo): Promise<Command> {
  const program = globalProgram(io);
  const { addToolCommands } = await import('./tool-command.js');
  await addToolCommands(program, io, undefined, () => {});
  addServeCommand(program, io);
  addPkiCommand(program, io);
  return program;
}

export async function runCli(io: CliIo): Promise<number> {
  let exitCode = EXIT_OK;
  const err = (line: string) => io.stderr.write(`${line}\n`);
  const program = globalProgram(io);

  // One subcommand per tool with a CLI face, in registry order. `--version` and `serve` need
  // none of them, so the registry (zod and every tool) is not loaded for those.
  const verb = verbOf(program, io.argv);
  const needsTools = verb === undefined ? !io.argv.some((a) => a === '-V' || a === '--version') : verb !== 'serve';
  if (needsTools) {
    const { addToolCommands, startEmbeddedWalker } = await import('./tool-command.js');
    startEmbeddedWalker(io, verb);
    await addToolCommands(program, io, verb, () => {
      exitCode = EXIT_FAILURE;
    });
  }
  addServeCommand(program, io);
  addPkiCommand(program, io);
  addNatsCommand(program, io);

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
    const [{ FleetError }, { pickStyle }] = await Promise.all([
      import('@fleetls/core'),
      import('../../tools/shared/cli-format.js'),
    ]);
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

/** `fleetls serve`: the MCP server (stdio or HTTP) and the Fleet API. */
function addServeCommand(program: Command, io: CliIo): void {
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
    .option(
      '--grants <file>',
      'who may call what: principals with hashed tokens, their tools, hosts and paths (reloaded on SIGHUP and change)',
    )
    .option('--oauth-issuer <url>', 'with --grants: accept JWT access tokens of this OAuth 2.1 issuer')
    .option('--oauth-audience <uri>', "this gateway's resource URI, the audience those tokens must carry")
    .option(
      '--oauth-dashboard-client <id>',
      "the issuer's public client the dashboard signs in as (authorization code + PKCE; redirect URI: the dashboard's address)",
    )
    .option('--no-auth', 'serve --http without a bearer token (loopback addresses only; logged at start)')
    .action(async (o: ServeFlags, cmd: Command) => {
      // prom-client loads only with --http, whose /metrics is where the gateway's metrics are read.
      const metrics =
        o.http === undefined ? undefined : (await import('../../metrics/metrics.js')).createGatewayMetrics();
      const g = cmd.optsWithGlobals() as GlobalFlags;
      const logger = await loggerOf(io, g, 'info');
      const { runServe } = await import('./serve.js');
      // commander names a negated flag by what it turns off: --no-auth is `auth: false`.
      const flags: ServeFlags = { ...o, noAuth: (o as { auth?: boolean }).auth === false };
      const { resolveInventoryPath } = await import('../../inventory/path.js');
      const inventoryFile = resolveInventoryPath({ inventoryPath: g.inventory, env: io.env, cwd: io.cwd });
      // The inventory loads once --http listens, so /readyz can say it is waiting for it.
      const open = async (localAllow?: string[]) => {
        const fleet = await fleetOf(io, g, logger, metrics?.observer, localAllow);
        return { fleet, options: await gatewayOptions(fleet, g) };
      };
      await runServe({ flags, open, inventoryFile, registry: g.nats !== undefined, logger, io, metrics });
    });
}
