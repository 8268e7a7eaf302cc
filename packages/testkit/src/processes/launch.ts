// One way for tests to start a process (fd's TestEnv runs its binary the same way): output
// collected, a wait for a line that says it is ready, and a process that cannot outlive the
// test that started it.
import { type ChildProcess, spawn } from 'node:child_process';

export interface LaunchOptions {
  /** What the errors call it (default: the command). */
  name?: string;
  cwd?: string;
  /** The whole environment of the process (default: this one's). */
  env?: NodeJS.ProcessEnv;
  uid?: number;
  gid?: number;
}

export interface Launched {
  child: ChildProcess;
  /** What it wrote so far. */
  stdout(): string;
  stderr(): string;
  /** Calls `each` with every whole line of stderr: those written so far, then each as it comes. */
  stderrLines(each: (line: string) => void): void;
  /**
   * The first match of `pattern` in stderr (its first group, else all of it), waiting up to
   * `timeoutMs` (default 60 s: the test machine's cores are shared). Rejects if the process
   * exits first; a process that does not print it in time is killed.
   */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Its exit code (null after a signal), once it has exited and its output is read. */
  exited: Promise<number | null>;
  /** Sends `signal` (default SIGTERM) unless it has exited, and resolves with its exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** How long a launched process may take to say it is ready, by default. */
export const READY_TIMEOUT_MS = 60_000;

const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

/**
 * Kills `child` when this test process exits, on every path: a test file whose run times out
 * or throws past its after() hooks would otherwise leave it running (re-parented to init),
 * holding ports and CPU for the tests after it.
 */
export function killOnExit(child: ChildProcess): void {
  const kill = () => {
    if (running(child)) child.kill('SIGKILL');
  };
  process.once('exit', kill);
  child.once('exit', () => process.off('exit', kill));
}

/** Starts `command` with stdin closed and stdout and stderr collected. */
export function launch(command: string, args: string[], opts: LaunchOptions = {}): Launched {
  const child = spawn(command, args, {
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(opts.uid !== undefined ? { uid: opts.uid } : {}),
    ...(opts.gid !== undefined ? { gid: opts.gid } : {}),
  });
  killOnExit(child);
  const name = opts.name ?? command;
  let out = '';
  let err = '';
  const lines: string[] = [];
  const listeners: ((line: string) => void)[] = [];
  let partial = '';
  child.stdout?.setEncoding('utf8').on('data', (c: string) => {
    out += c;
  });
  child.stderr?.setEncoding('utf8').on('data', (c: string) => {
    err += c;
    partial += c;
    for (let nl = partial.indexOf('\n'); nl >= 0; nl = partial.indexOf('\n')) {
      const line = partial.slice(0, nl);
      partial = partial.slice(nl + 1);
      lines.push(line);
      for (const each of listeners) each(line);
    }
  });
  // 'close', not 'exit': by then every byte it wrote has been read.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  child.once('error', (e) => {
    err += `${e.message}\n`;
  });
  const kill = async () => {
    if (running(child)) child.kill('SIGKILL');
    await exited;
  };
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    stderrLines(each) {
      for (const line of lines) each(line);
      listeners.push(each);
    },
    waitFor: (pattern, timeoutMs = READY_TIMEOUT_MS) =>
      new Promise<string>((resolve, reject) => {
        const found = () => {
          const m = pattern.exec(err);
          return m ? (m[1] ?? m[0]) : undefined;
        };
        const check = () => {
          const m = found();
          if (m === undefined) return;
          clearTimeout(timer);
          child.stderr?.off('data', check);
          resolve(m);
        };
        let timedOut = false;
        const timer = setTimeout(() => {
          timedOut = true;
          child.stderr?.off('data', check);
          void kill().then(() =>
            reject(new Error(`${name} did not print ${pattern} within ${timeoutMs} ms (killed); stderr:\n${err}`)),
          );
        }, timeoutMs);
        child.stderr?.on('data', check);
        check();
        void exited.then((code) => {
          if (timedOut || found() !== undefined) return;
          clearTimeout(timer);
          reject(new Error(`${name} exited (${code}) before printing ${pattern}; stderr:\n${err}`));
        });
      }),
    exited,
    stop: async (signal = 'SIGTERM') => {
      if (running(child)) child.kill(signal);
      return exited;
    },
  };
}

/** Runs `command` to its end; resolves with its exit code and output (rejects only if it cannot start). */
export function run(
  command: string,
  args: string[],
  opts: LaunchOptions = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = launch(command, args, opts);
  return new Promise((resolve, reject) => {
    p.child.once('error', reject);
    void p.exited.then((code) => resolve({ code, stdout: p.stdout(), stderr: p.stderr() }));
  });
}
