// One command on its own session channel: stdin given whole or none, stdout collected or streamed, stderr kept up to a
// bound, the exit status; aborting closes the channel.
import { FleetError } from '@fleetls/core';
import type ssh2 from 'ssh2';

type Client = InstanceType<typeof ssh2.Client>;
const STDERR_LIMIT = 64 * 1024;

export interface ExecResult {
  /** Collected stdout, unless a stdout handler consumed it. */
  stdout: Buffer;
  stderr: string;
  code: number | null;
  signal?: string;
}

export function execOnChannel(
  client: Client,
  cmd: string,
  signal: AbortSignal,
  label: string,
  onStdout?: (chunk: Buffer) => void,
  stdin?: Buffer | Promise<Buffer>,
): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    client.exec(cmd, (err, ch) => {
      if (err) return reject(err);
      let done = false;
      const out: Buffer[] = [];
      const errs: Buffer[] = [];
      let errLen = 0;
      let code: number | null = null;
      let sig: string | undefined;
      const abort = () => {
        if (done) return;
        done = true;
        try {
          ch.signal('KILL');
        } catch {
          // refused for root logins; `timeout` bounds the command
        }
        ch.close();
        reject(new FleetError('cancelled', `${label}: cancelled`));
      };
      signal.addEventListener('abort', abort, { once: true });
      // Input for the command (e.g. paths that are not UTF-8), then end of file; a promise
      // lets the channel (and the remote shell) open before the input is known.
      if (stdin)
        void Promise.resolve(stdin).then(
          (b) => {
            if (!done) ch.end(b);
          },
          () => abort(),
        );
      ch.on('data', (d: Buffer) => {
        if (done) return;
        if (onStdout) {
          try {
            onStdout(d);
          } catch (e) {
            done = true;
            ch.close();
            signal.removeEventListener('abort', abort);
            reject(e);
          }
        } else out.push(d);
      });
      ch.stderr.on('data', (d: Buffer) => {
        if (errLen < STDERR_LIMIT) {
          errs.push(d);
          errLen += d.length;
        }
      });
      ch.on('exit', (c: number | null, s?: string) => {
        code = c;
        sig = s;
      });
      ch.on('close', () => {
        signal.removeEventListener('abort', abort);
        if (done) return;
        done = true;
        resolve({ stdout: Buffer.concat(out), stderr: Buffer.concat(errs).toString('utf8'), code, signal: sig });
      });
    });
  });
}
