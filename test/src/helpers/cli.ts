// Runs the fleetls CLI (packages/gateway/dist/main.js) as users do: a real process, no
// inventory unless the test gives one.
import { createServer } from 'node:net';
import { assertCliJson } from '@fleetls/gateway/testing';
import { run } from '@fleetls/testkit';
import { GATEWAY_MAIN } from './gateway-process.js';

export type Run = Awaited<ReturnType<typeof run>>;

export async function fleetls(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Run> {
  const env = { ...process.env, FLEETLS_INVENTORY: '', NO_COLOR: '', ...opts.env };
  const r = await run(process.execPath, [GATEWAY_MAIN, ...args], { cwd: opts.cwd, env });
  // Every --json answer is checked against its tool's outputSchema.
  assertCliJson(args, r.stdout);
  return r;
}

/** A loopback port where nothing listens (bound, then closed). */
export async function refusedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}
