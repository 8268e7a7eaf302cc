// The SSH fallback: a HostBackend over ssh2 for hosts without an agent.

export { classifySshError, resolveTarget, SshConnection, type SshTarget } from './connection.js';
export { fingerprint, type HostKeyVerdict, verifyHostKey } from './known-hosts.js';
export {
  createSshBackend,
  SFTP_NOTE,
  SFTP_STAT_NOTE,
  type SshBackend,
  type SshBackendOptions,
  type SshWalkSummary,
} from './ssh-backend.js';
export { resolveSshConfig, type SshConfigEntry } from './ssh-config.js';
export type { SshHostConfig } from './types.js';
