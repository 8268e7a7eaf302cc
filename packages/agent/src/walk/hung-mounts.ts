// Mounts that stopped answering, remembered for a while. A file system call of a walk that
// does not return within the timeout (walk/call-probe.ts) marks the mount it was on; walks then
// list that mount as TIMEOUT without touching it, and requests for paths on it are refused
// at once, until the mount has had HUNG_RETRY_MS to recover (as node_exporter skips stuck
// mounts). A call that resolves symlinks marks only its own path: its target's mount is unknown.

import { mountOf, readMounts, under } from '../fs/mounts.js';
import type { StuckCall } from './call-probe.js';

/** A directory read or lstat that takes longer than this is a hung mount. */
export const DEFAULT_FS_TIMEOUT_MS = 5000;
/** How long a hung mount is skipped before a walk tries it again. */
const HUNG_RETRY_MS = 60_000;

/** A path the walk must not touch: a mount that did not answer (or, `exact`, one path whose resolution hung). */
export interface SkippedPath {
  /** latin1 string of the path's bytes. */
  point: string;
  exact: boolean;
  /** The TIMEOUT error's detail. */
  detail: string;
}

export interface HungMount extends SkippedPath {
  fsType: string;
  /** Epoch ms after which the mount is tried again. */
  until: number;
}

export class HungMounts {
  private hung: HungMount[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  /** Records the mount of a call that did not return; returns what is skipped from now on. */
  mark(call: StuckCall, timeoutMs: number): HungMount {
    const mount = call.follows ? undefined : mountOf(readMounts(), call.path);
    const point = mount?.point ?? call.path;
    const until = this.now() + HUNG_RETRY_MS;
    const what = mount ? `${mount.fsType} mount ${point}` : point;
    const detail =
      `${what} did not answer within ${timeoutMs} ms` +
      `${call.path === point ? '' : ` (at ${call.path})`}; skipped until ${new Date(until).toISOString()}`;
    const hung: HungMount = { point, exact: mount === undefined, detail, fsType: mount?.fsType ?? '', until };
    this.hung = [...this.active().filter((h) => h.point !== point), hung];
    return hung;
  }

  /** The mounts skipped now (expired ones are forgotten). */
  active(): HungMount[] {
    const now = this.now();
    if (this.hung.some((h) => h.until <= now)) this.hung = this.hung.filter((h) => h.until > now);
    return this.hung;
  }

  /** The hung mount `path` (latin1 of its bytes) is on, if any. */
  covering(path: string): HungMount | undefined {
    return this.active().find((h) => (h.exact ? h.point === path : under(h.point, path)));
  }
}
