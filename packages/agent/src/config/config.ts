// fleetls-agent configuration: command-line flags, or the same keys in snake_case in a
// YAML file (--config FILE; /etc/fleetls/agent.yaml when present and no --config).
// Flags override the file. Every error names the key it is about.
// The parts: config/flags.ts (the command line), config/file.ts (the YAML file),
// config/values.ts (each value's parser); here, how they combine into an AgentConfig.
import * as nodePath from 'node:path';
import { isLoopback } from '@fleetls/core';
// The settings' parser alone: the NATS client (~50 modules, ~4 MiB of an idle agent's RSS)
// loads only for an agent told to --connect (main.ts).
import { type AgentNatsConfig, parseAgentNats } from '@fleetls/runtime/nats-config';
import { DEFAULT_MAX_CONCURRENT_WALKS } from '../service/walk-admission.js';
import { DEFAULT_FS_TIMEOUT_MS } from '../walk/hung-mounts.js';
import {
  type FileKey,
  type FileSettings,
  fileSettings,
  findConfigFile,
  importYaml,
  type ParseYaml,
  readFileText,
  requireYaml,
} from './file.js';
import { type Flags, parseFlags } from './flags.js';
import {
  ConfigError,
  DEFAULT_LISTEN,
  DEFAULT_SOCKET_GROUP,
  DEFAULT_SOCKET_MODE,
  parseListen,
  parseSocketMode,
  parseUnixListen,
  positiveInt,
  str,
} from './values.js';

export { ConfigExit } from './flags.js';
export { ConfigError } from './values.js';

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
  /** Plaintext gRPC (TCP on loopback only); with a token file unless `insecureLoopback`. */
  insecure: boolean;
  /** `insecure_loopback`: plaintext on loopback with no token allowed, warned at every start. */
  insecureLoopback?: true;
  maxConcurrentWalks: number;
  /** A directory read or lstat of a walk that takes longer marks its mount hung (walk/hung-mounts.ts). */
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

/** A boolean setting: the flag, else the file's key (true or false). */
function flagOrFile(flag: unknown, file: unknown, key: string): boolean {
  if (file !== undefined && typeof file !== 'boolean') throw new ConfigError(`${key}: expected true or false`);
  return flag === true || file === true;
}

/**
 * TLS (all three files or none) versus plaintext on loopback. Plaintext TCP needs a token
 * (`insecure` with `token_file`): any local user can reach a loopback port, and the agent
 * lists with CAP_DAC_READ_SEARCH what that user may not. Without a token it takes the
 * explicit `insecure_loopback`, warned at every start (main.ts). Plaintext without either is
 * allowed only on a Unix socket (its mode and group are the boundary) or with no gRPC
 * listener at all.
 */
function resolveTransport(
  o: Flags,
  file: FileSettings,
  pick: (flag: string, key: FileKey) => string | undefined,
  where: { host: string; unix: UnixListen | undefined; grpcOff: boolean },
): { tls: AgentConfig['tls']; insecure: boolean; insecureLoopback: boolean; tokenFile: string | undefined } {
  const cert = pick('tlsCert', 'tls_cert');
  const keyFile = pick('tlsKey', 'tls_key');
  const ca = pick('tlsCa', 'tls_ca');
  const tokenFile = pick('tokenFile', 'token_file');

  const insecureLoopback = flagOrFile(o.insecureLoopback, file.insecure_loopback, 'insecure_loopback');
  const insecure = flagOrFile(o.insecure, file.insecure, 'insecure') || insecureLoopback;
  /** The plaintext key the operator gave, for the errors. */
  const plainKey = insecureLoopback ? 'insecure_loopback' : 'insecure';

  const tlsAny = cert || keyFile || ca;
  let tls: AgentConfig['tls'];
  if (tlsAny) {
    if (!cert) throw new ConfigError('tls_cert: required with tls_key and tls_ca (--tls-cert)');
    if (!keyFile) throw new ConfigError('tls_key: required with tls_cert and tls_ca (--tls-key)');
    if (!ca) throw new ConfigError('tls_ca: required with tls_cert and tls_key (--tls-ca)');
    tls = { cert, key: keyFile, ca };
  }
  if (insecure && tls) throw new ConfigError(`${plainKey}: cannot be combined with tls_cert/tls_key/tls_ca`);
  // On a Unix socket the file's mode and group are the boundary: plaintext needs no flag.
  if (!insecure && !tls && !where.unix && !where.grpcOff) {
    throw new ConfigError(
      'tls_cert: TLS is required: give --tls-cert, --tls-key and --tls-ca, listen on a Unix socket ' +
        '(--listen unix:PATH), or --insecure with --token-file on loopback',
    );
  }
  if (insecure && !where.unix && !isLoopback(where.host)) {
    throw new ConfigError(
      `${plainKey}: refused on non-loopback address ${where.host}; use TLS (--tls-cert/--tls-key/--tls-ca)`,
    );
  }
  if (insecure && !insecureLoopback && !tokenFile && !where.unix && !where.grpcOff) {
    throw new ConfigError(
      'insecure: plaintext on loopback needs token_file too (any local user could otherwise list what this ' +
        'agent may list); or listen on a Unix socket (listen: unix:PATH), or set insecure_loopback: true to ' +
        'run it open, warned at every start',
    );
  }
  return { tls, insecure, insecureLoopback, tokenFile };
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
  const configFile = findConfigFile(o.config as string | undefined, env);
  if (!configFile) return configOf(o, env, undefined, {});
  const { text, blank } = readFileText(configFile);
  return configOf(o, env, configFile, fileSettings(configFile, text, blank ? undefined : requireYaml()));
}

/**
 * parseAgentConfig as the agent's start does it: the YAML parser is imported only for a file
 * that has settings in it (the executable has no node_modules to require it from).
 */
export async function loadAgentConfig(argv: string[], env: NodeJS.ProcessEnv, version: string): Promise<AgentConfig> {
  const o = parseFlags(argv, version);
  const configFile = findConfigFile(o.config as string | undefined, env);
  if (!configFile) return configOf(o, env, undefined, {});
  const { text, blank } = readFileText(configFile);
  const parseYaml: ParseYaml | undefined = blank ? undefined : await importYaml();
  return configOf(o, env, configFile, fileSettings(configFile, text, parseYaml));
}

function configOf(o: Flags, env: NodeJS.ProcessEnv, configFile: string | undefined, file: FileSettings): AgentConfig {
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
  const { tls, insecure, insecureLoopback, tokenFile } = resolveTransport(o, file, pick, { host, unix, grpcOff });

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
  if (insecureLoopback) config.insecureLoopback = true;
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
