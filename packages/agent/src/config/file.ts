// The agent's YAML settings file: the same keys as the flags, in snake_case.
import * as fs from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { ConfigError } from './values.js';

export const DEFAULT_CONFIG_FILE = '/etc/fleetls/agent.yaml';

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
  'insecure_loopback',
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
export type FileKey = (typeof FILE_KEYS)[number];
export type FileSettings = Partial<Record<FileKey, unknown>>;

export function readFileSettings(file: string): Partial<Record<FileKey, unknown>> {
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

/** --config, else $FLEETLS_AGENT_CONFIG, else the default file when it exists. */
export function findConfigFile(given: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  let configFile = given;
  if (!configFile && env.FLEETLS_AGENT_CONFIG) configFile = env.FLEETLS_AGENT_CONFIG;
  if (!configFile && fs.existsSync(DEFAULT_CONFIG_FILE)) configFile = DEFAULT_CONFIG_FILE;
  return configFile;
}
