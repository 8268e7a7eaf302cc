// core's confinedResolution made by descriptor: each name is looked up in the directory
// reached so far (openat, or its magic link /proc/self/fd/N/<name>), never by a path
// string the kernel would resolve again from `/`, so a directory swapped for a symlink
// meanwhile cannot lead a lookup outside. A symlink is read through the same directory.
// Two drivers of one resolution: off the main thread (libuv's pool) for a request's path,
// and synchronous for a walker thread following a link.
import * as fs from 'node:fs';
import { promisify } from 'node:util';
import { confinedResolution, errnoOf, type NameKind, type ResolveStep } from '@fleetls/core';
import { atFd, DIR_FLAGS, openAt } from './beneath.js';
import { openDirsAsync, readsDents } from './fsat.js';

const openAsync = promisify(fs.open);
const readlinkAsync = promisify(fs.readlink);

/** An open of a name as a directory failed because it is not one (a symlink or a file). */
function notADir(err: unknown): boolean {
  const code = errnoOf(err);
  return code === 'ENOTDIR' || code === 'ELOOP';
}

/** readlink failed because the name is not a symlink. */
function notALink(err: unknown): boolean {
  return errnoOf(err) === 'EINVAL';
}

async function stepAsync(step: ResolveStep, dirs: number[]): Promise<NameKind | undefined> {
  if (step.op !== 'lookup') {
    closeDirs(step, dirs);
    return undefined;
  }
  const at = atFd(dirs[dirs.length - 1], step.name);
  try {
    dirs.push(await openAsync(at, DIR_FLAGS));
    return 'dir';
  } catch (err) {
    if (!notADir(err)) throw err;
  }
  try {
    return (await readlinkAsync(at, { encoding: 'buffer' })) as Buffer;
  } catch (err) {
    if (notALink(err)) return 'other';
    throw err;
  }
}

/**
 * The real path of the absolute `path`, resolved beneath `roots` (core's confinedResolution:
 * OutsideRoots before any outside name is looked up), its lookups on libuv's pool: with the
 * native module the names up to the next symlink in one task (lookAhead), else one call each.
 */
export async function resolveConfinedAsync(
  path: Buffer,
  roots: readonly Buffer[],
  followFinal: boolean,
): Promise<Buffer> {
  // dirs[0] is never closed by a step ('up' and 'root' keep one): the held `/` stays open.
  const dirs = [processRoot()];
  try {
    if (!readsDents()) {
      const steps = confinedResolution(path, roots, followFinal);
      let step = steps.next();
      while (!step.done) step = steps.next(await stepAsync(step.value, dirs));
      return step.value;
    }
    const given: Answer[] = [];
    for (;;) {
      const ahead = lookAhead(path, roots, followFinal, given, dirs);
      if (ahead.names.length === 0) return ended(ahead.end);
      const { fds, next } = await openDirsAsync(dirs[dirs.length - 1], ahead.names, ahead.end !== undefined);
      // Every name a directory, as the resolution supposed: its end is the real one.
      if (next === undefined && ahead.end !== undefined) return ended(ahead.end);
      for (const fd of fds) {
        dirs.push(fd);
        given.push('dir');
      }
      if (next instanceof Error) throw next;
      if (next !== undefined) given.push(next);
    }
  } finally {
    for (const fd of dirs.slice(1)) closeQuietly(fd);
  }
}

/** What a resolution's step was answered: a lookup's NameKind, nothing for 'up' and 'root'. */
type Answer = NameKind | undefined;

/** Names looked up in one task at most (a path's components, or a symlink's, are rarely more). */
const MAX_AHEAD = 64;

/** How a resolution ended: its real path, or what it threw (OutsideRoots, ELOOP, ENOTDIR). */
type End = { real: Buffer } | { error: unknown };

function ended(end: End | undefined): Buffer {
  if (end === undefined) throw new Error('confined resolution: no name to look up and no end');
  if ('error' in end) throw end.error;
  return end.real;
}

/**
 * The resolution from where it stands, and its next lookups as one task's names: node:fs made
 * a round trip to libuv's pool per name (four for a root four names deep, the main thread's
 * largest cost in a small walk: bench/results/structure.why.md, "agentroot"); the native
 * module looks up the names up to the next symlink in one (fsat.ts openDirsAsync).
 *
 * Issue 35's order holds: every name is approved by confinedResolution before it is looked up.
 * The resolution is pure (the same answers give the same steps), so it is replayed with the
 * answers `given` so far; its 'up' and 'root' steps from there are taken (the directories they
 * leave closed, in `dirs`); then each lookup is answered 'dir', as if each name were a
 * directory, and the names gathered until a step that is not a lookup, its end or its refusal
 * (`end`). Each name was so approved on the condition that the ones before it are directories,
 * and the task looks a name up only once they opened as directories (O_DIRECTORY|O_NOFOLLOW:
 * never through a symlink), where the condition holds; it stops at the first that is not one.
 * Where every name was a directory, `end` is the resolution's own; where one was not, its
 * answer is given and the resolution replayed again.
 */
function lookAhead(
  path: Buffer,
  roots: readonly Buffer[],
  followFinal: boolean,
  given: Answer[],
  dirs: number[],
): { names: Buffer[]; end: End | undefined } {
  const names: Buffer[] = [];
  const steps = confinedResolution(path, roots, followFinal);
  try {
    let step = steps.next();
    for (const answer of given) step = steps.next(answer);
    while (!step.done && step.value.op !== 'lookup') {
      closeDirs(step.value, dirs);
      given.push(undefined);
      step = steps.next(undefined);
    }
    while (!step.done && step.value.op === 'lookup' && names.length < MAX_AHEAD) {
      names.push(step.value.name);
      step = steps.next('dir');
    }
    return { names, end: step.done ? { real: step.value } : undefined };
  } catch (error) {
    return { names, end: { error } };
  }
}

let rootFd: number | undefined;

/**
 * `/`, held open by the main thread for the process: every request's resolution starts there,
 * and opening it per request was one more round trip to libuv's pool. The agent never chroots,
 * so the held descriptor is the directory a fresh open of `/` gives; opening `/` looks no name
 * up, so it cannot hang and is done here, once.
 */
function processRoot(): number {
  rootFd ??= fs.openSync('/', DIR_FLAGS);
  return rootFd;
}

/**
 * Closed on the calling thread, the main one too: the descriptors are O_PATH, whose close calls
 * no file system (no flush, no release), so it cannot hang on a dead mount as an open can. On
 * libuv's pool each close was a round trip between threads, five per walk of a root four names
 * deep, which cost a small walk more than its listing (bench/results/structure.why.md, "agentsmall").
 */
function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    // already closed
  }
}

/** An 'up' or 'root' step: the directories it leaves, closed. */
function closeDirs(step: ResolveStep, dirs: number[]): void {
  const keep = step.op === 'up' ? dirs.length - 1 : 1;
  while (dirs.length > Math.max(keep, 1)) closeQuietly(dirs.pop() as number);
}

function stepSync(step: ResolveStep, dirs: number[]): NameKind | undefined {
  if (step.op !== 'lookup') {
    closeDirs(step, dirs);
    return undefined;
  }
  const dirFd = dirs[dirs.length - 1];
  try {
    dirs.push(openAt(dirFd, step.name, true));
    return 'dir';
  } catch (err) {
    if (!notADir(err)) throw err;
  }
  try {
    return fs.readlinkSync(atFd(dirFd, step.name), { encoding: 'buffer' });
  } catch (err) {
    if (notALink(err)) return 'other';
    throw err;
  }
}

/** resolveConfinedAsync on this thread (a walker's: its calls are watched there). */
export function resolveConfinedSync(path: Buffer, roots: readonly Buffer[], followFinal: boolean): Buffer {
  const dirs = [fs.openSync('/', DIR_FLAGS)];
  try {
    const steps = confinedResolution(path, roots, followFinal);
    let step = steps.next();
    while (!step.done) step = steps.next(stepSync(step.value, dirs));
    return step.value;
  } finally {
    for (const fd of dirs) closeQuietly(fd);
  }
}
