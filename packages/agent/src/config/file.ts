// The agent's YAML settings file: the same keys as the flags, in snake_case.
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
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

/** YAML's parse, as the `yaml` package exports it. */
export type ParseYaml = (text: string) => unknown;

// `yaml` (72 modules) is loaded only for a file that has something in it: an agent started with
// an empty one (`--config /dev/null`) or none holds none of it at rest (issue 39's idle RSS).
/** The parser, loaded by dynamic import: what the agent's start uses (the executable's one bundle has it). */
export async function importYaml(): Promise<ParseYaml> {
  return (await import('yaml')).parse;
}

/** The parser, loaded synchronously from node_modules: for parseAgentConfig's callers in the workspace. */
export function requireYaml(): ParseYaml {
  return (createRequire(import.meta.url)('yaml') as typeof import('yaml')).parse;
}

/** The file's text, and whether it needs parsing: an empty or blank file is no settings. */
export function readFileText(file: string): { text: string; blank: boolean } {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`config: cannot read ${file}: ${(err as Error).message}`);
  }
  // Only what YAML itself reads as nothing (its whitespace): anything else goes to the parser.
  return { text, blank: /^[ \t\r\n]*$/.test(text) };
}

/** The settings in `text` (the file's, from readFileText), parsed by `parseYaml`; blank text needs none. */
export function fileSettings(file: string, text: string, parseYaml: ParseYaml | undefined): FileSettings {
  if (parseYaml === undefined) return {};
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
  return doc as FileSettings;
}

/** --config, else $FLEETLS_AGENT_CONFIG, else the default file when it exists. */
export function findConfigFile(given: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  let configFile = given;
  if (!configFile && env.FLEETLS_AGENT_CONFIG) configFile = env.FLEETLS_AGENT_CONFIG;
  if (!configFile && fs.existsSync(DEFAULT_CONFIG_FILE)) configFile = DEFAULT_CONFIG_FILE;
  return configFile;
}
