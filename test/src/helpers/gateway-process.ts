// Starts the real `fleetls serve` (packages/gateway/dist/main.js) and waits for the lines it
// prints on stderr once each face listens. Shared by the metrics and Fleet API tests.
import { type ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';
import { killNow, killOnExit, REPO_ROOT, START_TIMEOUT_MS } from './agent-process.js';

export const GATEWAY_MAIN = path.join(REPO_ROOT, 'packages/gateway/dist/main.js');

export interface GatewayProcess {
  child: ChildProcess;
  /**
   * The first match of `pattern` in stderr (a face's address), waiting up to `timeoutMs`
   * (default START_TIMEOUT_MS) for it. A gateway that does not print it in time is killed.
   */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  stderr(): string;
  stop(): Promise<number | null>;
}

/** `main`: another build of the gateway (the one-file bundle), run in `cwd`. */
export function startGateway(
  args: string[],
  env: Record<string, string>,
  opts: { main?: string; cwd?: string } = {},
): GatewayProcess {
  const child = spawn(process.execPath, [opts.main ?? GATEWAY_MAIN, 'serve', ...args], {
    cwd: opts.cwd,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
  });
  killOnExit(child);
  let err = '';
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.stderr?.on('data', (c: Buffer) => {
    err += c.toString();
  });
  return {
    child,
    stderr: () => err,
    waitFor: (pattern, timeoutMs = START_TIMEOUT_MS) =>
      new Promise<string>((resolve, reject) => {
        const check = () => {
          const m = pattern.exec(err);
          if (!m) return false;
          clearTimeout(timer);
          child.stderr?.off('data', check);
          resolve(m[1] ?? m[0]);
          return true;
        };
        let timedOut = false;
        const timer = setTimeout(() => {
          timedOut = true;
          child.stderr?.off('data', check);
          // A start-up that timed out: killed here, so no caller's missed stop() leaves it running.
          void killNow(child, exit).then(() =>
            reject(new Error(`gateway did not print ${pattern} within ${timeoutMs} ms (killed); stderr:\n${err}`)),
          );
        }, timeoutMs);
        if (check()) return;
        child.stderr?.on('data', check);
        void exit.then(() => {
          if (!timedOut && !check()) reject(new Error(`gateway exited; stderr:\n${err}`));
        });
      }),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exit;
    },
  };
}
