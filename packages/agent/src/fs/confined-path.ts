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
 * OutsideRoots before any outside name is looked up), each call on libuv's pool.
 */
export async function resolveConfinedAsync(
  path: Buffer,
  roots: readonly Buffer[],
  followFinal: boolean,
): Promise<Buffer> {
  // dirs[0] is never closed by a step ('up' and 'root' keep one): the held `/` stays open.
  const dirs = [processRoot()];
  try {
    const steps = confinedResolution(path, roots, followFinal);
    let step = steps.next();
    while (!step.done) step = steps.next(await stepAsync(step.value, dirs));
    return step.value;
  } finally {
    for (const fd of dirs.slice(1)) closeQuietly(fd);
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
