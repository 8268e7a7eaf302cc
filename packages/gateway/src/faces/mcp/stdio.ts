// `fleetls serve` over stdio: stdout carries only the MCP transport's JSON-RPC lines.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { resolveGatewayOptions } from '../../fleet/options.js';
import { createScanRegistry } from '../../scans/scan-registry.js';
import { createMcpServer, type McpServerDeps } from './server.js';

/** Serves until the client goes away (stdin ends or the transport closes). The fleet stays the caller's to close. */
export async function serveStdio(deps: McpServerDeps): Promise<void> {
  // Anything printed with console.log would corrupt the protocol stream.
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
  // The session's scans: owned by this session, gone with it.
  const scans = deps.scans ?? createScanRegistry(resolveGatewayOptions(deps.options), deps.logger, deps.stateDir);
  const server = createMcpServer({ ...deps, scans });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
  });
  await server.connect(transport);
  deps.logger.info({ transport: 'stdio' }, 'MCP server ready');
  const onEnd = () => void server.close();
  process.stdin.once('end', onEnd);
  process.stdin.once('close', onEnd);
  await closed;
  process.stdin.off('end', onEnd);
  process.stdin.off('close', onEnd);
  if (!deps.scans) scans.close();
  deps.logger.info({ transport: 'stdio' }, 'MCP client gone');
}
