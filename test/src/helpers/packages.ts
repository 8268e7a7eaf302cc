// Building the packages under test: the self-contained executables once per test process
// (about 15 s of CPU), then each package and version once, from them.
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './agent-process.js';

const PACKAGE_MAIN = join(REPO_ROOT, 'scripts/package/main.mjs');
let executables: string | undefined;
const built = new Map<string, string>();

export function sh(cmd: string, args: string[]): string {
  return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/**
 * A directory holding the fleetls-agent and fleetls executables and the fsat.node the
 * packages take from beside them: $FLEETLS_TEST_EXECUTABLES
 * (.ci/run sets it to the dist/ that `npm run package` has just written, so CI tests the
 * release command's own executables and does not build them twice), else built on first use.
 */
export function builtExecutables(): string {
  if (executables) return executables;
  const dir = mkdtempSync(join(tmpdir(), 'fleetls-exe-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const given = process.env.FLEETLS_TEST_EXECUTABLES;
  if (given) {
    for (const file of ['fleetls-agent', 'fleetls', 'fsat.node']) copyFileSync(join(given, file), join(dir, file));
  } else {
    sh(process.execPath, [PACKAGE_MAIN, '--out', dir, '--only', 'exe']);
  }
  executables = dir;
  return dir;
}

/** `npm run package`'s .deb or .rpm of `pkg` at `version`, copied to `out`; returns its path. */
export function buildPackage(out: string, part: 'deb' | 'rpm', version: string, pkg = 'fleetls-agent'): string {
  const name = part === 'deb' ? `${pkg}_${version}_amd64.deb` : `${pkg}-${version}.x86_64.rpm`;
  let file = built.get(name);
  if (!file) {
    const dir = join(builtExecutables(), 'packages');
    sh(process.execPath, [
      PACKAGE_MAIN,
      '--out',
      dir,
      '--only',
      part,
      '--packages',
      pkg,
      '--executables',
      builtExecutables(),
      '--package-version',
      version,
    ]);
    file = join(dir, name);
    built.set(name, file);
  }
  mkdirSync(out, { recursive: true });
  copyFileSync(file, join(out, name));
  return join(out, name);
}

const LOCK = join(tmpdir(), 'fleetls-package-tests.lock');

/**
 * Waits for the machine-wide lock of the tests that install packages (flock(1), held by a
 * child that lives until this process ends), so dpkg never runs twice at once and no test
 * sees another's /etc/fleetls.
 */
export function holdPackageLock(): Promise<void> {
  const child = spawn('flock', ['-x', LOCK, 'sh', '-c', 'echo locked; exec cat'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  process.once('exit', () => child.kill());
  return new Promise((resolve, reject) => {
    const failed = (code: number | null) => reject(new Error(`flock ${LOCK} exited ${code}`));
    child.once('exit', failed);
    child.stdout.once('data', () => {
      // Held until this process ends (its end closes cat's stdin): nothing here keeps it alive.
      child.off('exit', failed);
      child.stdout.destroy();
      (child.stdin as unknown as { unref(): void }).unref();
      child.unref();
      resolve();
    });
  });
}
