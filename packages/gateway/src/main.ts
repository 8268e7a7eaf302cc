#!/usr/bin/env node
// The fleetls process: the only side-effecting file of the gateway. It binds the CLI to
// this process's argv, streams and signals, and sets the exit code.
import * as nodeModule from 'node:module';
import { runCli } from './faces/cli/run.js';
import { GATEWAY_VERSION } from './version.js';

// Node >= 22.1 keeps V8's compiled code of each module on disk (NODE_COMPILE_CACHE, else
// under the OS temp directory) and reuses it: a verb's ~300 modules (the MCP SDK, zod) are
// compiled once, not at every start. Node 20 has no such call; it fails soft (a read-only
// disk) and NODE_DISABLE_COMPILE_CACHE=1 turns it off.
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();

const abort = new AbortController();
let stop: () => void = () => {};
const stopped = new Promise<void>((resolve) => {
  stop = resolve;
});
let signals = 0;
let signalled: NodeJS.Signals | undefined;
const onSignal = (name: NodeJS.Signals) => {
  signals++;
  signalled ??= name;
  // First signal: cancel in-flight host calls and let the command finish; second: leave now.
  if (signals > 1) process.exit(name === 'SIGINT' ? 130 : 143);
  abort.abort(new Error(`${name} received`));
  stop();
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

// No top-level await: the self-contained executable's main script is CommonJS (Node's
// single executable applications run no ES module there before Node 25).
void runCli({
  argv: process.argv.slice(2),
  env: process.env,
  cwd: process.cwd(),
  stdout: process.stdout,
  stderr: process.stderr,
  signal: abort.signal,
  version: GATEWAY_VERSION,
  untilShutdown: () => stopped,
  onHangup: (fn) => {
    process.on('SIGHUP', fn);
    return () => process.off('SIGHUP', fn);
  },
}).then((code) => {
  // Interrupted (Ctrl-C, SIGTERM) with work cut short: the shell's convention, 128 + signal.
  const exit = code !== 0 && signalled ? (signalled === 'SIGINT' ? 130 : 143) : code;
  process.exitCode = exit;
  // A handle left open by a dependency must not keep a finished command alive; unref'd, this
  // timer fires only if something else still holds the event loop.
  setTimeout(() => process.exit(exit), 3000).unref();
});
