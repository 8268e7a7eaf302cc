// What a sizing pass (du/apparent.ts) adds up: each directory sized on its own, its sums
// rolled up into its ancestors at the end, and the walk's memo of the sizes below one that
// was sized.
import type { DirSize } from '@fleetls/core';

/**
 * Sizes of directories below one that was sized, kept for the walk's later questions: one
 * pass over a subtree answers for every level of it, as du's one pass does, instead of each
 * level reading its subtree again. Bounded: past `max` entries nothing more is kept.
 */
export interface DirSizeMemo {
  /** Relative path (latin1) → size. */
  sizes: Map<string, DirSize>;
  max: number;
}

/** Where a subtree is sized from, for `memo`: its relative path and how many levels below it the walk asks about. */
export interface DirSizeKeep {
  rel: string;
  levels: number;
  memo: DirSizeMemo;
}

/** A directory sized on its own (it is within `keep.levels`), or the nearest such ancestor's. */
export interface SizedDir {
  size: number;
  /** st_blocks × 512 of everything counted in size. */
  allocated: number;
  partial: boolean;
  /** Directories it (and the ones added to it) could not open or read. */
  unreadable: number;
  /** Index of the parent's SizedDir (-1 for the top). */
  up: number;
  rel: string;
}

/** The deadline passed: everything counted so far, partial. */
export function cutShort(sized: SizedDir[]): DirSize {
  const sum = (k: 'size' | 'allocated' | 'unreadable') => sized.reduce((t, x) => t + x[k], 0);
  return {
    size: sum('size'),
    allocated: sum('allocated'),
    partial: true,
    unreadableDirs: sum('unreadable'),
  };
}

/** Children were pushed after their parents: adding each to its parent from the end sums subtrees. */
export function rollUp(sized: SizedDir[]): void {
  for (let i = sized.length - 1; i > 0; i--) {
    const up = sized[sized[i].up];
    up.size += sized[i].size;
    up.allocated += sized[i].allocated;
    up.unreadable += sized[i].unreadable;
    if (sized[i].partial) up.partial = true;
  }
}

/** The sizes below the top into the memo, relative to the walk's root, until it holds `max`. */
export function keepSizes(keep: DirSizeKeep, sized: SizedDir[]): void {
  const { sizes, max } = keep.memo;
  for (let i = 1; i < sized.length && sizes.size < max; i++) {
    const rel = keep.rel === '' ? sized[i].rel.slice(1) : sized[i].rel;
    sizes.set(rel, dirSizeOf(sized[i]));
  }
}

export function dirSizeOf(dir: SizedDir): DirSize {
  const out: DirSize = { size: dir.size, partial: dir.partial, allocated: dir.allocated };
  if (dir.unreadable > 0) out.unreadableDirs = dir.unreadable;
  return out;
}
