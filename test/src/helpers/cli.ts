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
