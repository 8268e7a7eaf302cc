// fleetls-agent configuration: command-line flags, or the same keys in snake_case in a
// YAML file (--config FILE; /etc/fleetls/agent.yaml when present and no --config).
// Flags override the file. Every error names the key it is about.
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { isLoopback } from '@fleetls/core';
import { type AgentNatsConfig, parseAgentNats } from '@fleetls/runtime/nats';
import { Command, CommanderError, Option } from 'commander';
import { parse as parseYaml } from 'yaml';
import { DEFAULT_FS_TIMEOUT_MS } from './hung-mounts.js';
import { DEFAULT_MAX_CONCURRENT_WALKS } from './walk-admission.js';

export { DEFAULT_MAX_CONCURRENT_WALKS } from './walk-admission.js';

export const DEFAULT_LISTEN = '127.0.0.1:7443';
export const DEFAULT_CONFIG_FILE = '/etc/fleetls/agent.yaml';
/** A Unix socket's defaults: the owner and the group may connect, no one else. */
export const DEFAULT_SOCKET_MODE = 0o660;
export const DEFAULT_SOCKET_GROUP = 'fleetls';

/** `listen: unix:PATH`: the socket, its mode and the group that may connect (resolved when bound). */
export interface UnixListen {
  path: string;
  mode: number;
  group: string;
}

export interface AgentConfig {
  /** HOST:PORT (IPv6 in brackets) or unix:PATH, as given. */
  listen: string;
  /** The TCP address; unused when `unix` is set. */
  host: string;
  port: number;
  /** Set for `listen: unix:PATH`: no TCP port at all. */
  unix?: UnixListen;
  /** Allowed roots, absolute and normalised (symlinks resolved at startup by the server). */
  allow: string[];
  /**
   * Where the host's file system is mounted when the agent runs in a container (as
   * node_exporter's --path.rootfs): request paths and allowed roots name host paths, and
   * are read under this directory. Unset = `/`.
   */
  pathRootfs?: string;
  tls?: { cert: string; key: string; ca: string };
  tokenFile?: string;
  insecure: boolean;
  maxConcurrentWalks: number;
  /** A directory read or lstat of a walk that takes longer marks its mount hung (hung-mounts.ts). */
  fsTimeoutMs: number;
  /** Server ceilings; unset = core's defaults. */
  ceilings: { maxDepth?: number; maxItemsPerDir?: number; maxEntries?: number };
  /** Where Prometheus metrics are served over HTTP at /metrics; unset = not served. */
  metrics?: { host: string; port: number };
  /** The file the settings were read from, if any. */
  configFile?: string;
  /** Dial out to NATS and serve Walk and Stat there too (connect: …); unset = gRPC only. */
  nats?: AgentNatsConfig;
  /** With `connect` and no `listen` given, the agent has no gRPC listener at all. */
  grpcOff?: boolean;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Thrown after --help or --version printed their text: exit 0. */
export class ConfigExit extends Error {
  override name = 'ConfigExit';
  constructor(readonly output: string) {
    super('exit');
  }
}

const FILE_KEYS = [
  'listen',
  'socket_mode',
  'socket_group',
  'allow',
  'path_rootfs',
  'tls_cert',
  'tls_key',
  'tls_ca',
  'token_file',
  'insecure',
  'max_concurrent_walks',
  'fs_timeout_ms',
  'max_depth',
  'max_items_per_dir',
  'max_entries',
  'metrics',
  'connect',
  'nats_creds',
  'nats_tls',
  'name',
  'labels',
  'groups',
  'heartbeat_ms',
] as const;
type FileKey = (typeof FILE_KEYS)[number];

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

export function parseListen(value: string, key = 'listen'): { host: string; port: number } {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(value);
  if (!m) throw new ConfigError(`${key}: expected HOST:PORT (IPv6 as [ADDR]:PORT), got ${JSON.stringify(value)}`);
  const port = Number(m[3]);
  if (port > 65535) throw new ConfigError(`${key}: port must be 0-65535, got ${port}`);
  return { host: m[1] ?? m[2], port };
}

/** `unix:PATH` → the absolute, normalised PATH; undefined for anything else. */
export function parseUnixListen(value: string, key = 'listen'): string | undefined {
  if (!value.startsWith('unix:')) return undefined;
  const p = value.slice('unix:'.length);
  if (!nodePath.isAbsolute(p) || p.includes('\0') || p.endsWith('/')) {
    throw new ConfigError(`${key}: expected unix:/ABSOLUTE/PATH of a socket, got ${JSON.stringify(value)}`);
  }
  // sun_path holds 108 bytes with its NUL.
  if (Buffer.byteLength(p) > 107) throw new ConfigError(`${key}: socket path longer than 107 bytes: ${p}`);
  return nodePath.normalize(p);
}

/**
 * An octal mode for the socket: "0660" or "660". YAML reads an unquoted 0660 as the
 * number 660, so a number is read by its decimal digits, as chmod reads them.
 */
export function parseSocketMode(value: unknown, key = 'socket_mode'): number {
  const text = typeof value === 'number' && Number.isInteger(value) ? String(value) : value;
  if (typeof text !== 'string' || !/^0?[0-7]{3}$/.test(text)) {
    throw new ConfigError(`${key}: expected an octal mode 000-777 (e.g. 0660), got ${JSON.stringify(value)}`);
  }
  const n = Number.parseInt(text, 8);
  if (n & 0o007) {
    throw new ConfigError(
      `${key}: ${formatMode(n)} gives users outside the group access; the last digit must be 0 (e.g. 0660)`,
    );
  }
  return n;
}

export function formatMode(mode: number): string {
  return `0${mode.toString(8).padStart(3, '0')}`;
}

function positiveInt(value: unknown, key: string, min = 1): number {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > 2 ** 31 - 1) {
    throw new ConfigError(`${key}: expected an integer >= ${min}, got ${JSON.stringify(value)}`);
  }
  return n;
}

function readFileSettings(file: string): Partial<Record<FileKey, unknown>> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`config: cannot read ${file}: ${(err as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new ConfigError(`config: ${file} is not valid YAML: ${(err as Error).message}`);
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new ConfigError(`config: ${file} must be a YAML mapping`);
  for (const k of Object.keys(doc)) {
    if (!(FILE_KEYS as readonly string[]).includes(k)) {
      throw new ConfigError(`${k}: unknown key in ${file} (known: ${FILE_KEYS.join(', ')})`);
    }
  }
  return doc as Partial<Record<FileKey, unknown>>;
}

function str(v: unknown, key: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || v === '') throw new ConfigError(`${key}: expected a non-empty string`);
  return v;
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
    .option('--insecure', 'plaintext gRPC (loopback addresses only)')
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

type Flags = Record<string, unknown>;
type FileSettings = Partial<Record<FileKey, unknown>>;

/** Runs commander over argv; its help/version output and its errors become ConfigExit/ConfigError. */
function parseFlags(argv: string[], version: string): Flags {
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

/** --config, else $FLEETLS_AGENT_CONFIG, else the default file when it exists. */
function findConfigFile(o: Flags, env: NodeJS.ProcessEnv): string | undefined {
  let configFile = o.config as string | undefined;
  if (!configFile && env.FLEETLS_AGENT_CONFIG) configFile = env.FLEETLS_AGENT_CONFIG;
  if (!configFile && fs.existsSync(DEFAULT_CONFIG_FILE)) configFile = DEFAULT_CONFIG_FILE;
  return configFile;
}

/** The socket's mode and group: only meaningful for `listen: unix:PATH`, refused otherwise. */
function resolveUnixListen(o: Flags, file: FileSettings, listen: string, socketPath: string | undefined) {
  const modeRaw = o.socketMode ?? file.socket_mode;
  const groupRaw = (o.socketGroup as string | undefined) ?? str(file.socket_group, 'socket_group');
  if (socketPath !== undefined) {
    const group = groupRaw ?? DEFAULT_SOCKET_GROUP;
    if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]*\$?$/.test(group)) {
      throw new ConfigError(`socket_group: expected a group name or number, got ${JSON.stringify(group)}`);
    }
    const unix: UnixListen = {
      path: socketPath,
      mode: modeRaw === undefined ? DEFAULT_SOCKET_MODE : parseSocketMode(modeRaw),
      group,
    };
    return unix;
  }
  if (modeRaw !== undefined || groupRaw !== undefined) {
    throw new ConfigError(
      `${modeRaw !== undefined ? 'socket_mode' : 'socket_group'}: only applies to listen: unix:PATH, not ${listen}`,
    );
  }
  return undefined;
}

/** The allowed roots: absolute directories, normalised; one string is a list of one. */
function parseAllow(o: Flags, file: FileSettings): string[] {
  let allowRaw: unknown = o.allow ?? file.allow ?? [];
  if (typeof allowRaw === 'string') allowRaw = [allowRaw];
  if (!Array.isArray(allowRaw)) throw new ConfigError('allow: expected a list of absolute directories');
  return allowRaw.map((a) => {
    if (typeof a !== 'string' || !nodePath.isAbsolute(a) || a.includes('\0')) {
      throw new ConfigError(`allow: expected an absolute directory, got ${JSON.stringify(a)}`);
    }
    return nodePath.resolve(a);
  });
}

function parsePathRootfs(o: Flags, file: FileSettings): string | undefined {
  const rootfsRaw = (o.pathRootfs as string | undefined) ?? str(file.path_rootfs, 'path_rootfs');
  if (rootfsRaw !== undefined && (!nodePath.isAbsolute(rootfsRaw) || rootfsRaw.includes('\0'))) {
    throw new ConfigError(`path_rootfs: expected an absolute directory, got ${JSON.stringify(rootfsRaw)}`);
  }
  return rootfsRaw === undefined ? undefined : nodePath.resolve(rootfsRaw);
}

/**
 * TLS (all three files or none) versus --insecure (loopback only). Plaintext without
 * --insecure is allowed only on a Unix socket or when there is no gRPC listener at all.
 */
function resolveTransport(
  o: Flags,
  file: FileSettings,
  pick: (flag: string, key: FileKey) => string | undefined,
  where: { host: string; unix: UnixListen | undefined; grpcOff: boolean },
): { tls: AgentConfig['tls']; insecure: boolean; tokenFile: string | undefined } {
  const cert = pick('tlsCert', 'tls_cert');
  const keyFile = pick('tlsKey', 'tls_key');
  const ca = pick('tlsCa', 'tls_ca');
  const tokenFile = pick('tokenFile', 'token_file');

  const insecureFile = file.insecure;
  if (insecureFile !== undefined && typeof insecureFile !== 'boolean') {
    throw new ConfigError('insecure: expected true or false');
  }
  const insecure = o.insecure === true || insecureFile === true;

  const tlsAny = cert || keyFile || ca;
  let tls: AgentConfig['tls'];
  if (tlsAny) {
    if (!cert) throw new ConfigError('tls_cert: required with tls_key and tls_ca (--tls-cert)');
    if (!keyFile) throw new ConfigError('tls_key: required with tls_cert and tls_ca (--tls-key)');
    if (!ca) throw new ConfigError('tls_ca: required with tls_cert and tls_key (--tls-ca)');
    tls = { cert, key: keyFile, ca };
  }
  if (insecure && tls) throw new ConfigError('insecure: cannot be combined with tls_cert/tls_key/tls_ca');
  // On a Unix socket the file's mode and group are the boundary: plaintext needs no flag.
  if (!insecure && !tls && !where.unix && !where.grpcOff) {
    throw new ConfigError(
      'tls_cert: TLS is required: give --tls-cert, --tls-key and --tls-ca, or --insecure on loopback',
    );
  }
  if (insecure && !where.unix && !isLoopback(where.host)) {
    throw new ConfigError(
      `insecure: refused on non-loopback address ${where.host}; use TLS (--tls-cert/--tls-key/--tls-ca)`,
    );
  }
  return { tls, insecure, tokenFile };
}

/** The NATS settings: file paths resolved against the config file's directory, flags over the file. */
function resolveNats(
  o: Flags,
  file: FileSettings,
  env: NodeJS.ProcessEnv,
  connectRaw: unknown,
  pick: (flag: string, key: FileKey) => string | undefined,
  fromFile: (p: string | undefined) => string | undefined,
): AgentNatsConfig {
  const fail = (m: string) => new ConfigError(m);
  let natsTls: unknown = file.nats_tls;
  if (natsTls !== undefined && typeof natsTls === 'object' && natsTls !== null) {
    const t = natsTls as Record<string, unknown>;
    natsTls = Object.fromEntries(Object.entries(t).map(([k, v]) => [k, typeof v === 'string' ? fromFile(v) : v]));
  }
  const flagTls = { ca: o.natsTlsCa, cert: o.natsTlsCert, key: o.natsTlsKey } as Record<string, string | undefined>;
  if (flagTls.ca || flagTls.cert || flagTls.key) {
    natsTls = { ...(natsTls as object), ...Object.fromEntries(Object.entries(flagTls).filter(([, v]) => v)) };
  }
  const hb = o.heartbeatMs ?? file.heartbeat_ms;
  return parseAgentNats(
    {
      connect: connectRaw,
      creds: pick('natsCreds', 'nats_creds'),
      tls: natsTls,
      // FLEETLS_AGENT_NAME: a DaemonSet's node name (the pod's own hostname is the pod's).
      name: o.name ?? file.name ?? env.FLEETLS_AGENT_NAME,
      labels: o.label ?? file.labels,
      groups: o.group ?? file.groups,
      heartbeatMs: hb === undefined ? undefined : positiveInt(hb, 'heartbeat_ms', 100),
    },
    fail,
  );
}

/**
 * Parses argv (without node and script) and the environment. Throws ConfigError naming the
 * key on a bad setting, ConfigExit after --help/--version.
 */
export function parseAgentConfig(argv: string[], env: NodeJS.ProcessEnv = process.env, version = '0.0.0'): AgentConfig {
  const o = parseFlags(argv, version);
  const configFile = findConfigFile(o, env);
  const file = configFile ? readFileSettings(configFile) : {};
  const fileDir = configFile ? nodePath.dirname(nodePath.resolve(configFile)) : process.cwd();
  const fromFile = (p: string | undefined) => (p === undefined ? undefined : nodePath.resolve(fileDir, p));

  const listenGiven = (o.listen as string | undefined) ?? str(file.listen, 'listen');
  const connectRaw = o.connect ?? file.connect;
  const grpcOff = connectRaw !== undefined && listenGiven === undefined;
  const listen = listenGiven ?? DEFAULT_LISTEN;
  const socketPath = parseUnixListen(listen);
  const { host, port } = socketPath === undefined ? parseListen(listen) : { host: '', port: 0 };
  const unix = resolveUnixListen(o, file, listen, socketPath);
  const allow = parseAllow(o, file);
  const pathRootfs = parsePathRootfs(o, file);

  const pick = (flag: string, key: FileKey): string | undefined => {
    const v = o[flag] as string | undefined;
    if (v !== undefined) return v;
    return fromFile(str(file[key], key));
  };
  const { tls, insecure, tokenFile } = resolveTransport(o, file, pick, { host, unix, grpcOff });

  const num = (flag: string, key: FileKey): number | undefined => {
    const v = o[flag] ?? file[key];
    return v === undefined ? undefined : positiveInt(v, key);
  };
  const maxConcurrentWalks = num('maxConcurrentWalks', 'max_concurrent_walks') ?? DEFAULT_MAX_CONCURRENT_WALKS;
  const fsTimeoutMs = num('fsTimeoutMs', 'fs_timeout_ms') ?? DEFAULT_FS_TIMEOUT_MS;
  const ceilings: AgentConfig['ceilings'] = {};
  const md = num('maxDepth', 'max_depth');
  const mi = num('maxItemsPerDir', 'max_items_per_dir');
  const me = num('maxEntries', 'max_entries');
  if (md !== undefined) ceilings.maxDepth = md;
  if (mi !== undefined) ceilings.maxItemsPerDir = mi;
  if (me !== undefined) ceilings.maxEntries = me;

  const config: AgentConfig = { listen, host, port, allow, insecure, maxConcurrentWalks, fsTimeoutMs, ceilings };
  if (unix) config.unix = unix;
  if (pathRootfs !== undefined && pathRootfs !== '/') config.pathRootfs = pathRootfs;
  if (tls) config.tls = tls;
  if (tokenFile) config.tokenFile = tokenFile;
  const metrics = (o.metrics as string | undefined) ?? str(file.metrics, 'metrics');
  if (metrics !== undefined) config.metrics = parseListen(metrics, 'metrics');
  if (configFile) config.configFile = configFile;
  if (connectRaw !== undefined) {
    config.nats = resolveNats(o, file, env, connectRaw, pick, fromFile);
    if (grpcOff) config.grpcOff = true;
  } else {
    for (const k of ['nats_creds', 'nats_tls', 'name', 'labels', 'groups', 'heartbeat_ms'] as const) {
      if (file[k] !== undefined) throw new ConfigError(`${k}: only applies with connect (NATS)`);
    }
  }
  return config;
}
