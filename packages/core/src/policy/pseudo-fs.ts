// Pseudo file systems: what a walk does not enter when it crosses into one. The agent
// finds them in /proc/self/mountinfo, the SSH backend with find's -fstype; both report a
// pruned mount point with the same error row.
import type { EntryError } from '../domain/types.js';

/**
 * File systems with no files of their own (kernel state, devices, control interfaces): a walk
 * that crosses into one lists its mount point but does not enter it. By type, as
 * /proc/self/mountinfo and GNU find's -fstype name them, never by path.
 */
export const PSEUDO_FS_TYPES = [
  'autofs',
  'binfmt_misc',
  'bpf',
  'cgroup',
  'cgroup2',
  'configfs',
  'debugfs',
  'devpts',
  'devtmpfs',
  'efivarfs',
  'fusectl',
  'hugetlbfs',
  'mqueue',
  'nsfs',
  'proc',
  'pstore',
  'rpc_pipefs',
  'securityfs',
  'selinuxfs',
  'sysfs',
  'tracefs',
] as const;

/** The error row of a pseudo file system's mount point the walk did not enter. */
export function prunedError(fsType: string): EntryError {
  return { code: 'PRUNED', detail: `${fsType}: a pseudo file system, not walked (ask for its path to list it)` };
}
