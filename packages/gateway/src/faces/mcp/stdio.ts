// `fleetls serve` over stdio: stdout carries only the MCP transport's JSON-RPC lines. The SDK's
// serveStdio picks the connection's revision from its opening (`server/discover` for
// 2026-07-28, `initialize` for a 2025 one) and serves it from one server of the factory.

import { randomBytes } from 'node:crypto';
import { serveStdio as serveMcpStdio } from '@modelcontextprotocol/server/stdio';
import { resolveGatewayOptions } from '../../fleet/options.js';
import { createScanRegistry } from '../../scans/scan-registry.js';
import { createMcpServer, type McpServerDeps } from './server.js';

/** Serves until the client goes away (stdin ends or closes). The fleet stays the caller's to close. */
export async function serveStdio(deps: McpServerDeps): Promise<void> {
  // Anything printed with console.log would corrupt the protocol stream.
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
  // The session's scans: owned by this session, gone with it. The factory may be called twice
  // (a `server/discover` probe's server, then the connection's): one principal for both.
  const scans = deps.scans ?? createScanRegistry(resolveGatewayOptions(deps.options), deps.logger, deps.stateDir);
  const principal = deps.principal ?? `${deps.caller ?? 'stdio'}:${randomBytes(8).toString('hex')}`;
  const gone = new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
  const handle = serveMcpStdio(() => createMcpServer({ ...deps, scans, principal }), {
    onerror: (err) => deps.logger.debug({ err }, 'MCP stdio error'),
  });
  deps.logger.info({ transport: 'stdio' }, 'MCP server ready');
  await gone;
  await handle.close();
  if (!deps.scans) scans.close();
  deps.logger.info({ transport: 'stdio' }, 'MCP client gone');
}
