// Runs the fleetls CLI (packages/gateway/dist/main.js) as users do: a real process, no
// inventory unless the test gives one.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { assertCliJson } from '@fleetls/gateway/testing';
import { GATEWAY_MAIN } from './gateway-process.js';

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function fleetls(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, FLEETLS_INVENTORY: '', NO_COLOR: '', ...opts.env };
    const child = spawn(process.execPath, [GATEWAY_MAIN, ...args], {
      cwd: opts.cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => {
      // Every --json answer is checked against its tool's outputSchema.
      try {
        assertCliJson(args, stdout);
      } catch (err) {
        reject(err);
        return;
      }
      resolve({ code, stdout, stderr });
    });
  });
}

/** A loopback port where nothing listens (bound, then closed). */
export async function refusedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}
