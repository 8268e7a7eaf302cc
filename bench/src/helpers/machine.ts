// What a figure was measured on: printed at the head of every section file and of RESULTS.md.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { benchDir } from '../trees.js';
import { fmtBytes } from './stats.js';

export const loadAverage = (): string =>
  os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');

function osRelease(): string {
  try {
    return /PRETTY_NAME="([^"]+)"/.exec(fs.readFileSync('/etc/os-release', 'utf8'))?.[1] ?? '';
  } catch {
    return '';
  }
}

function fsType(): string {
  try {
    return execFileSync('df', ['-T', benchDir()], { encoding: 'utf8' }).split('\n')[1]?.split(/\s+/)[1] ?? '?';
  } catch {
    return '?';
  }
}

/** One line: CPU, cores, Node. */
export function machineLine(): string {
  const cpus = os.cpus();
  return `${cpus[0]?.model ?? '?'} × ${cpus.length}, ${fmtBytes(os.totalmem())} RAM, Node ${process.version}`;
}

export function machineRows(loadAtStart: string): string[][] {
  const release = osRelease();
  return [
    ['CPU', `${os.cpus()[0]?.model ?? '?'} × ${os.cpus().length}`],
    ['RAM', fmtBytes(os.totalmem())],
    ['Node', process.version],
    ['Kernel', `${os.type()} ${os.release()}${release ? ` (${release})` : ''}`],
    ['Trees on', `${fsType()} (${benchDir().startsWith(os.tmpdir()) ? 'os.tmpdir()' : 'FLEETLS_BENCH_DIR'})`],
    ['Date', new Date().toISOString()],
    ['Load average at start / end', `${loadAtStart} / ${loadAverage()}`],
    ['User', process.getuid?.() === 0 ? 'root' : 'non-root'],
  ];
}
