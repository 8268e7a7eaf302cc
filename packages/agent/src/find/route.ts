// Which walks the agent runs with GNU find (find/find-source.ts) instead of its JS walker: a
// ranked walk by size or mtime (what core's pre-ranking decides exactly), on a host whose
// find and awk passed the probe, over local disks only. find cannot be bounded call by
// call as the JS walker is (a hung NFS server would hold it), so a path with a network,
// FUSE or pseudo file system at or below it, or on a mount remembered as hung, is walked
// by the JS walker, as is every walk that follows symlinks (the allowed-roots check of
// each target is the JS walker's). Where the native module reads and stats directories
// (fs/packed-dir.ts) the JS walker is the default for every walk: it then costs about find's
// CPU per entry, and a ranked walk may take a second thread (walk/split/ranked-share.ts),
// where the find route runs two finds, two awks and the agent's lstat of the kept rows (bench
// walk: 0.74x against 0.52x of find on the 300k tree, 3.9 against 7.1 µs of CPU per entry).
// Setting FLEETLS_FIND_AFTER_ENTRIES asks for the find route all the same.
import { execFile } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { PROBE_COMMAND, parseProbe, remoteRankable, type WalkRequest } from '@fleetls/core';
import { readsDents } from '../fs/fsat.js';
import { type Mount, mountOf, under } from '../fs/mounts.js';
import type { SkippedPath } from '../walk/hung-mounts.js';

/** File systems on local storage (or memory): a call on them returns, as find needs. */
const LOCAL_FS_TYPES = new Set([
  'btrfs',
  'exfat',
  'ext2',
  'ext3',
  'ext4',
  'f2fs',
  'iso9660',
  'jfs',
  'ntfs3',
  'overlay',
  'ramfs',
  'reiserfs',
  'squashfs',
  'tmpfs',
  'vfat',
  'xfs',
  'zfs',
]);

/**
 * A ranked walk meant for find first runs in the JS walker over at most this many entries
 * (walk/worker.ts), and starts again in find only past it. find's four processes cost ~80 ms
 * of walk time whatever the tree's size (bench/results/structure.why.md: a top 10 of a
 * 37-entry directory took 77 ms in find, 1 ms in the JS walker); the JS walker lists this
 * many in about that time, so a small tree never pays for find and a big one pays this once.
 * FLEETLS_FIND_AFTER_ENTRIES sets it (0: find from the first entry, as the find route's tests
 * need on their small trees).
 */
export const FIND_AFTER_ENTRIES = entriesFromEnv(process.env.FLEETLS_FIND_AFTER_ENTRIES, 5000);

/** FLEETLS_FIND_AFTER_ENTRIES was set: the find route is wanted even where the native module reads directories. */
const FIND_ASKED = (process.env.FLEETLS_FIND_AFTER_ENTRIES ?? '') !== '';

function entriesFromEnv(text: string | undefined, otherwise: number): number {
  if (text === undefined || text === '') return otherwise;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 0 || n > 1_000_000_000)
    throw new Error(`FLEETLS_FIND_AFTER_ENTRIES must be a whole number from 0 to 1000000000, got '${text}'`);
  return n;
}

let probed: boolean | undefined;
let probing: Promise<boolean> | undefined;

/**
 * Probes once per process for GNU find and an awk that handles NUL bytes (core's probe
 * command, as the SSH backend runs it on a remote host). Until it has answered, walks use
 * the JS walker.
 */
export function probeFind(): Promise<boolean> {
  probing ??= new Promise<boolean>((resolve) => {
    execFile('sh', ['-c', PROBE_COMMAND], { timeout: 10_000 }, (err, stdout) => {
      const p = err ? undefined : parseProbe(stdout);
      probed = p?.gnuFind === true && p.awk;
      resolve(probed);
    });
  });
  return probing;
}

/** Why the JS walker lists this walk (undefined: find may). */
export function jsOnlyReason(
  req: WalkRequest,
  skip: readonly SkippedPath[],
  mounts: readonly Mount[],
): string | undefined {
  if (!remoteRankable(req)) return 'shape';
  if (probed !== true) {
    void probeFind();
    return 'no GNU find and awk';
  }
  return localOnlyReason(req.path, skip, mounts);
}

/**
 * Why a call under `reqPath` might not return (a hung mount skipped at or below it, a network,
 * FUSE or pseudo file system there), or undefined where every call does (local disks only).
 */
export function localOnlyReason(
  reqPath: string,
  skip: readonly SkippedPath[],
  mounts: readonly Mount[],
): string | undefined {
  const path = Buffer.from(reqPath).toString('latin1');
  if (skip.some((s) => under(s.point, path) || under(path, s.point))) return 'hung mount';
  const own = mountOf(mounts, path);
  if (own && !LOCAL_FS_TYPES.has(own.fsType)) return `${own.fsType} mount`;
  const below = mounts.find((m) => under(path, m.point) && m !== own && !LOCAL_FS_TYPES.has(m.fsType));
  if (below) return `${below.fsType} mount below`;
  return undefined;
}

/**
 * Ranked walks listed by find at once. Each keeps up to four processes busy (two finds, two
 * awks); past this many the JS walker lists the walk, so a burst of calls does not become a
 * burst of processes.
 */
export const MAX_FIND_WALKS = Math.max(1, availableParallelism());

/** The find walks running for one WalkPool (walk/pool.ts). */
export class FindSlots {
  used = 0;
  constructor(readonly max = MAX_FIND_WALKS) {}
}

/**
 * Does this walk go to find? Then it holds one of the pool's find slots until the returned
 * function gives it back. `mounts`: the mount table, read once per walk (walker.ts hands the
 * same table to the walk's worker).
 */
export function takeFind(
  req: WalkRequest,
  skip: readonly SkippedPath[],
  slots: FindSlots,
  mounts: readonly Mount[],
): (() => void) | undefined {
  if (!FIND_ASKED && readsDents()) return undefined;
  if (slots.used >= slots.max || jsOnlyReason(req, skip, mounts) !== undefined) return undefined;
  slots.used++;
  let held = true;
  return () => {
    if (held) slots.used--;
    held = false;
  };
}
