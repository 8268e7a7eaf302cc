// The one logger factory of every fleetls process (agent and gateway): JSON on stderr
// (stdout belongs to the MCP stdio transport), secrets censored in every line and every
// child's bindings (withoutSecrets).
//
// A process never waits on its log. An MCP client that starts `fleetls serve` with stderr on a
// pipe it never reads fills that pipe after some 100 KB; a blocking write would then freeze
// the gateway for good. So lines go out with non-blocking writes: what the pipe cannot take
// waits in a bounded buffer (retried as the reader comes back), what does not fit is dropped
// and counted (droppedLogLines(), a metric), and the next line that gets through is followed
// by one saying how many were lost. At exit what is still buffered is written synchronously,
// for a bounded time: an orderly shutdown in front of a reader loses nothing.
import { type Logger, pino } from 'pino';

export type { Logger } from 'pino';

/** Keys whose values never reach a log line, at a line's top or in the objects below it. */
export const SECRET_KEYS: ReadonlySet<string> = new Set([
  'token',
  'authorization',
  'passphrase',
  'privateKey',
  'password',
]);
const CENSOR = '[redacted]';
/** Levels of objects below a line's top that are searched (`ssh.password`, `request.headers.authorization`). */
const SECRET_DEPTH = 2;

/** Objects searched for secret keys: plain ones, and Errors (a failure's own properties are logged too). */
function searched(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null || v instanceof Error;
}

/** A shallow copy that is still what it was: an Error keeps its class, message and stack. */
function copyOf(obj: Record<string, unknown>): Record<string, unknown> {
  if (!(obj instanceof Error)) return { ...obj };
  return Object.defineProperties(Object.create(Object.getPrototypeOf(obj)), Object.getOwnPropertyDescriptors(obj));
}

/**
 * `obj` with the value of every secret key censored; only the objects on the way to one are
 * copied, the caller's are never changed. Not pino's own `redact`: it (@pinojs/redact) clones
 * every object a wildcard path crosses on every line, ~13 µs a line here, the largest part of
 * an agent's logging per call (three lines: walk start, walk end, audit).
 */
export function withoutSecrets(obj: Record<string, unknown>, depth = SECRET_DEPTH): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(obj)) {
    const v = obj[key];
    const r = SECRET_KEYS.has(key) ? CENSOR : depth > 0 && searched(v) ? withoutSecrets(v, depth - 1) : v;
    if (r === v) continue;
    out ??= copyOf(obj);
    out[key] = r;
  }
  return out ?? obj;
}

/** Bytes a destination holds while its reader does not read; lines past it are dropped. */
export const LOG_BUFFER_BYTES = 4 * 1024 * 1024;
/** Buffered lines are offered again to a full pipe after this, doubling to MAX_RETRY_MS while it takes nothing. */
const RETRY_MS = 10;
const MAX_RETRY_MS = 1000;
/** How long the exit flush waits for a full pipe to take the buffered lines. */
const EXIT_FLUSH_MS = 1000;

interface Destination {
  stream: ReturnType<typeof pino.destination>;
  /** The first logger on this fd: it reports the drops. */
  reporter?: Logger;
  unreported: number;
}

/** One destination per file descriptor: two loggers of a process share its buffer and order. */
const destinations = new Map<number, Destination>();
let dropped = 0;
/** Set at exit: only then may a write wait (sleep and retry) for a full pipe, and only until this. */
let exitDeadline: number | undefined;

/** Log lines this process dropped because its log's reader did not take them. */
export function droppedLogLines(): number {
  return dropped;
}

function flushAtExit(): void {
  exitDeadline = Date.now() + EXIT_FLUSH_MS;
  // write('') sends what is buffered, waiting on a full pipe until exitDeadline; any other
  // failure ends it at once. (sonic-boom's flushSync would retry a closed fd forever.)
  for (const d of destinations.values()) {
    try {
      d.stream.write('');
    } catch {
      // Nobody is left to tell.
    }
  }
}

function destination(fd: number): Destination {
  const known = destinations.get(fd);
  if (known) return known;
  // Node opens a pipe or socket stderr in non-blocking mode when process.stderr is first
  // used; a process that never used it would still block on a full pipe.
  if (fd === 2) process.stderr.writable;
  // pino's sonic-boom; it also stops writing for good when the reader is gone (EPIPE).
  const stream = pino.destination({
    dest: fd,
    sync: true,
    maxLength: LOG_BUFFER_BYTES,
    // A full pipe (EAGAIN) is not waited for: the write fails, its bytes stay buffered.
    retryEAGAIN: () => exitDeadline !== undefined && Date.now() < exitDeadline,
  });
  const d: Destination = { stream, unreported: 0 };
  let retry: NodeJS.Timeout | undefined;
  let retryMs = RETRY_MS;
  let report: NodeJS.Immediate | undefined;
  // An error never reaches the logging call: a full pipe is offered the buffer again shortly
  // (write('') sends what is buffered), any other failure at the next line.
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if ((err.code !== 'EAGAIN' && err.code !== 'EBUSY') || retry !== undefined) return;
    retry = setTimeout(() => {
      retry = undefined;
      stream.write('');
    }, retryMs).unref();
    retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
  });
  stream.on('drop', () => {
    dropped++;
    d.unreported++;
  });
  stream.on('write', () => {
    retryMs = RETRY_MS;
    if (d.unreported === 0 || report !== undefined || !d.reporter) return;
    report = setImmediate(() => {
      report = undefined;
      const n = d.unreported;
      d.unreported = 0;
      // If this line is dropped too, it counts itself and the next report includes it.
      d.reporter?.warn({ dropped: n }, `${n} log lines dropped: the log's reader did not keep up`);
    });
  });
  if (destinations.size === 0) process.once('exit', flushAtExit);
  destinations.set(fd, d);
  return d;
}

export function createLogger(opts: { level?: string; name: string; fd?: number }): Logger {
  const d = destination(opts.fd ?? 2);
  const logger = pino(
    {
      name: opts.name,
      level: opts.level ?? 'info',
      base: { svc: opts.name },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }), log: withoutSecrets },
    },
    d.stream,
  );
  // pino applies `formatters.bindings` to the root's base only, never to a child's bindings:
  // every child (a child's child inherits this, with itself as `this`) censors its own.
  const pinoChild = logger.child;
  logger.child = function child(this: Logger, bindings, options) {
    return pinoChild.call(this, withoutSecrets(bindings), options);
  } as Logger['child'];
  d.reporter ??= logger;
  return logger;
}
