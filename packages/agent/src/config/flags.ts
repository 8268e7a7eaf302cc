// The agent's command line (commander): its flags and help, and what they parse to.
import { Command, CommanderError, Option } from 'commander';
import { DEFAULT_MAX_CONCURRENT_WALKS } from '../service/walk-admission.js';
import { DEFAULT_FS_TIMEOUT_MS } from '../walk/hung-mounts.js';
import { DEFAULT_CONFIG_FILE } from './file.js';
import { ConfigError, DEFAULT_LISTEN, DEFAULT_SOCKET_GROUP, DEFAULT_SOCKET_MODE, formatMode } from './values.js';

/** Thrown after --help or --version printed their text: exit 0. */
export class ConfigExit extends Error {
  override name = 'ConfigExit';
  constructor(readonly output: string) {
    super('exit');
  }
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

export function buildProgram(version: string): Command {
  return new Command('fleetls-agent')
    .description('Read-only directory listing agent for fleetls: serves gRPC Walk and Stat over allowed roots.')
    .version(version, '-V, --version')
    .option('--listen <address>', `HOST:PORT, or unix:PATH for a Unix socket (default ${DEFAULT_LISTEN})`)
    .option('--socket-mode <mode>', `mode of the Unix socket (default ${formatMode(DEFAULT_SOCKET_MODE)})`)
    .option(
      '--socket-group <group>',
      `group of the Unix socket, whose members may connect (default ${DEFAULT_SOCKET_GROUP})`,
    )
    .option('--allow <dir>', 'allowed root, repeatable; with none every path is refused', collect)
    .option('--path-rootfs <dir>', "where the host's / is mounted (in a container); paths name host paths")
    .option('--tls-cert <file>', 'server certificate (PEM)')
    .option('--tls-key <file>', 'server private key (PEM)')
    .option('--tls-ca <file>', 'CA that signs client certificates (mTLS)')
    .option('--token-file <file>', 'file holding the bearer token clients must send')
    .option('--insecure', 'plaintext gRPC (loopback addresses only; with --token-file)')
    .option(
      '--insecure-loopback',
      'plaintext gRPC on loopback, a token optional: without one any local user may call (warned at every start)',
    )
    .addOption(
      new Option('--max-concurrent-walks <n>', `walks served at once (default ${DEFAULT_MAX_CONCURRENT_WALKS})`),
    )
    .option(
      '--fs-timeout-ms <ms>',
      `a directory read or lstat taking longer marks its mount hung, skipped for a while (default ${DEFAULT_FS_TIMEOUT_MS})`,
    )
    .option('--max-depth <n>', 'ceiling on a request max_depth')
    .option('--max-items-per-dir <n>', 'ceiling on a request max_items_per_dir')
    .option('--max-entries <n>', 'ceiling on a request max_entries')
    .option('--metrics <host:port>', 'serve Prometheus metrics over HTTP at /metrics (default: off)')
    .option('--connect <urls>', 'dial out to NATS (nats://HOST:PORT,…) and serve Walk and Stat there too')
    .option('--nats-creds <file>', 'NATS credentials: a .creds file or an nkey user seed')
    .option('--nats-tls-ca <file>', 'CA of the NATS servers (TLS)')
    .option('--nats-tls-cert <file>', 'client certificate for NATS (PEM)')
    .option('--nats-tls-key <file>', 'client key for NATS (PEM)')
    .option('--name <name>', "the host's name on NATS: its subjects and registry key (default: hostname)")
    .option('--label <key=value>', 'a label in the NATS registry, repeatable', collect)
    .option('--group <group>', 'a group in the NATS registry, repeatable', collect)
    .option('--heartbeat-ms <ms>', 'how often the registration is refreshed (default 10000)')
    .option('--config <file>', `YAML file with the same keys in snake_case (default ${DEFAULT_CONFIG_FILE} if present)`)
    .allowExcessArguments(false)
    .helpOption('-h, --help', 'show this help');
}

/** The parsed flags, by camelCase name. */
export type Flags = Record<string, unknown>;

/** Runs commander over argv; its help/version output and its errors become ConfigExit/ConfigError. */
export function parseFlags(argv: string[], version: string): Flags {
  const program = buildProgram(version);
  let out = '';
  program.exitOverride();
  program.configureOutput({
    writeOut: (s) => {
      out += s;
    },
    writeErr: (s) => {
      out += s;
    },
  });
  try {
    program.parse(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') {
        throw new ConfigExit(out);
      }
      throw new ConfigError(err.message.replace(/^error: /, ''));
    }
    throw err;
  }
  return program.opts<Flags>();
}
