/** How to reach a host over SSH, as the inventory gives it (paths already `~`-expanded). */
export interface SshHostConfig {
  /** Address or `~/.ssh/config` alias. */
  host: string;
  port?: number;
  user?: string;
  identityFile?: string;
  /** known_hosts file; default ~/.ssh/known_hosts. */
  knownHosts?: string;
  /** false only per host, and logged as a warning. Default true. */
  strictHostKeyChecking?: boolean;
  passphraseFile?: string;
  passphraseEnv?: string;
  proxyJump?: string;
  connectTimeoutMs?: number;
}
