// Where and how to reach one SSH host: the inventory entry merged with ~/.ssh/config (the
// inventory wins, as ssh's command line does), keys read, a ProxyJump resolved the same way.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { FleetError } from '@fleetls/core';
import { parseJump, readUserSshConfig, resolveSshConfig } from './ssh-config.js';
import type { SshHostConfig } from './types.js';

export const DEFAULT_CONNECT_TIMEOUT_MS = 3000;

/** Where and how to connect, after ~/.ssh/config and the inventory are merged. */
export interface SshTarget {
  /** The inventory's name for it (messages). */
  label: string;
  host: string;
  port: number;
  user: string;
  privateKey?: Buffer;
  passphrase?: string;
  agent?: string;
  knownHostsFile: string;
  strictHostKeyChecking: boolean;
  connectTimeoutMs: number;
  jump?: SshTarget;
}

function readKey(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

/** Merges the inventory entry with ~/.ssh/config (the inventory wins, as ssh's command line does). */
export function resolveTarget(
  cfg: SshHostConfig,
  opts: { connectTimeoutMs?: number; configText?: string } = {},
): SshTarget {
  const home = homedir();
  const text = opts.configText ?? readUserSshConfig(home);
  const conf = resolveSshConfig(cfg.host, text, home);
  const user = cfg.user ?? conf.user ?? process.env.USER ?? 'root';
  const identityFiles = cfg.identityFile
    ? [cfg.identityFile]
    : conf.identityFiles.length > 0
      ? conf.identityFiles
      : ['id_ed25519', 'id_ecdsa', 'id_rsa'].map((n) => join(home, '.ssh', n));
  let privateKey: Buffer | undefined;
  for (const f of identityFiles) {
    privateKey = readKey(f);
    if (privateKey) break;
  }
  if (cfg.identityFile && !privateKey) {
    throw new FleetError('unauthenticated', `identity_file ${cfg.identityFile} cannot be read`);
  }
  let passphrase: string | undefined;
  if (cfg.passphraseFile) passphrase = readFileSync(cfg.passphraseFile, 'utf8').replace(/\r?\n$/, '');
  else if (cfg.passphraseEnv) passphrase = process.env[cfg.passphraseEnv];
  const connectTimeoutMs = cfg.connectTimeoutMs ?? opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const knownHostsFile = cfg.knownHosts ?? join(home, '.ssh', 'known_hosts');
  const target: SshTarget = {
    label: cfg.host,
    host: conf.hostName,
    port: cfg.port ?? conf.port ?? 22,
    user,
    privateKey,
    passphrase,
    agent: process.env.SSH_AUTH_SOCK || undefined,
    knownHostsFile,
    strictHostKeyChecking: cfg.strictHostKeyChecking !== false,
    connectTimeoutMs,
  };
  const jumpSpec = cfg.proxyJump ?? conf.proxyJump;
  if (jumpSpec) {
    const j = parseJump(jumpSpec);
    target.jump = resolveTarget(
      { host: j.host, port: j.port, user: j.user, knownHosts: cfg.knownHosts, connectTimeoutMs },
      { configText: text },
    );
  }
  return target;
}
