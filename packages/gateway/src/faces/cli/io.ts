// What the command line takes from its process (argv, env, streams, signals), so that
// runCli and runServe run in tests in-process; main.ts wires the real process to it.
import type { Logger } from '../../logger.js';

export interface OutStream {
  write(s: string): unknown;
  isTTY?: boolean;
}

export interface CliIo {
  /** Arguments after the program name. */
  argv: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdout: OutStream;
  stderr: OutStream;
  /** Aborts in-flight host calls (Ctrl-C). */
  signal?: AbortSignal;
  /** `serve` runs until this resolves (SIGINT/SIGTERM). */
  untilShutdown?: () => Promise<void>;
  /** Calls `fn` at each SIGHUP (`serve --grants` reads its file again); returns the way to stop. */
  onHangup?: (fn: () => void) => () => void;
  version?: string;
  /** Replaces the stderr JSON logger (tests). */
  logger?: Logger;
}
