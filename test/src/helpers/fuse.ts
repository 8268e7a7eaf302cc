// A real FUSE file system (test/fixtures/fuse-fs.py, python3-fusepy) mounted for a test,
// and taken down after it: lazy unmount first (a hung mount cannot be unmounted otherwise),
// then the python process is killed, which fails every request still waiting on it.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '@fleetls/testkit';
import { REPO_ROOT } from './agent-process.js';

const FIXTURE = join(REPO_ROOT, 'test/fixtures/fuse-fs.py');
// Debian's python3-fusepy installs for the system interpreter, whatever python3 PATH finds.
const PYTHON = '/usr/bin/python3';

export type FuseMode = 'answers' | 'hangs' | 'slow' | 'fails';

export interface FuseMount {
  mountpoint: string;
  unmount(): Promise<void>;
}

function mounted(mountpoint: string): boolean {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .some((l) => l.split(' ')[4] === mountpoint);
}

/** Mounts the fixture at `mountpoint` (an existing empty directory) and waits until it is mounted. */
export async function mountFuse(mode: FuseMode, mountpoint: string): Promise<FuseMount> {
  const child: ChildProcess = spawn(PYTHON, [FIXTURE, mode, mountpoint], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (d: string) => {
    err += d;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitFor(
      () => {
        if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}`);
        return mounted(mountpoint);
      },
      { everyMs: 50, what: 'the mount' },
    );
  } catch (e) {
    child.kill('SIGKILL');
    throw new Error(`FUSE fixture (${mode}) did not mount at ${mountpoint} (${(e as Error).message}): ${err}`);
  }
  const takeDown = (): void => {
    try {
      execFileSync('fusermount', ['-u', '-z', mountpoint], { stdio: 'pipe' });
    } catch {
      // not mounted any more
    }
    child.kill('SIGKILL');
  };
  // Even when a test fails before its after() hook runs, the mount does not outlive it.
  process.once('exit', takeDown);
  return {
    mountpoint,
    async unmount() {
      process.off('exit', takeDown);
      takeDown();
      await exited;
    },
  };
}
