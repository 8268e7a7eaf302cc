// How a directory is read through node:fs, where the native module's getdents64
// (fs/packed-dir.ts) is not loaded: whole (one call) when its size says it is small, else
// streamed through opendir in chunks, never loaded whole. Names are latin1 strings of their
// bytes (one char per byte, so raw bytes survive unchanged, and far cheaper for node:fs to
// make than a Buffer each); the Buffer-name readers are the fallback for entries of unknown type.
// Every reader takes the directory descriptor's magic link (beneath.ts), as a Buffer.
import type * as fsTypes from 'node:fs';
import * as fs from 'node:fs';
import type { EntryType } from '@fleetls/core';
import { errnoOf } from '@fleetls/core';

/**
 * A directory whose own st_size is at most this is read in one call (every name at once);
 * a larger one, or one whose size is unknown, is streamed through opendir. ext4 gives 4 KiB
 * per block (64 KiB: ~1,500-3,000 names), tmpfs 20 bytes per entry, btrfs twice the names' bytes.
 */
export const WHOLE_READ_MAX_DIR_BYTES = 64 * 1024;

export function isSmallDir(size: number): boolean {
  return size > 0 && size <= WHOLE_READ_MAX_DIR_BYTES;
}

/** opendir with latin1 names, 128 entries per native call. */
export function openDir(path: Buffer): fsTypes.Dir {
  return fs.opendirSync(path, { encoding: 'latin1', bufferSize: 128 });
}

/** Every entry of a directory with a type, names as latin1 strings of their bytes. */
export function readWhole(path: Buffer): fsTypes.Dirent[] {
  return fs.readdirSync(path, { withFileTypes: true, encoding: 'latin1' });
}

/**
 * Node types an entry whose kernel type is unknown (FUSE: sshfs, rclone, s3fs; XFS without
 * ftype; some NFS) by lstat of the path joined with its name, and that join throws
 * ERR_INVALID_ARG_TYPE when the path is a Buffer and names are strings. Such a directory is
 * read again with Buffer names, which Node can join.
 */
export function needsBufferNames(err: unknown): boolean {
  return errnoOf(err) === 'ERR_INVALID_ARG_TYPE';
}

/** Every entry of a directory with a type, names as Buffers (the unknown-type fallback). */
export function readWholeBytes(path: Buffer): fsTypes.Dirent[] {
  // Typed as the latin1 readers' Dirent so one walk loop takes both; fs-source's fromDirent tells the names apart.
  return fs.readdirSync(path, { withFileTypes: true, encoding: 'buffer' }) as unknown as fsTypes.Dirent[];
}

/** opendir with raw-byte names, 1024 entries per system call by default (du sizing). */
export function openDirBytes(path: Buffer, bufferSize = 1024): fsTypes.Dir {
  // @types/node types `encoding` as a BufferEncoding only; 'buffer' is supported at runtime.
  return fs.opendirSync(path, { encoding: 'buffer', bufferSize } as unknown as fsTypes.OpenDirOptions);
}

type DirentKind = Pick<
  fsTypes.Dirent,
  'isFile' | 'isDirectory' | 'isSymbolicLink' | 'isFIFO' | 'isSocket' | 'isCharacterDevice' | 'isBlockDevice'
>;

export function direntType(dirent: DirentKind): EntryType {
  if (dirent.isFile()) return 'file';
  if (dirent.isDirectory()) return 'dir';
  if (dirent.isSymbolicLink()) return 'symlink';
  if (dirent.isFIFO()) return 'fifo';
  if (dirent.isSocket()) return 'socket';
  if (dirent.isCharacterDevice()) return 'char';
  if (dirent.isBlockDevice()) return 'block';
  return 'unknown';
}
