// An MCP client linked in memory to a server, as a host application connects over stdio, so a
// test calls the tools over the real protocol with every answer checked against its schema.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { InMemoryTransport, type McpServer } from '@modelcontextprotocol/server';
import { createMcpServer, type McpServerDeps } from '../faces/mcp/server.js';
import { withContract } from './contract.js';

export interface LinkedClient {
  client: Client;
  /** Closes the client and the server. */
  close(): Promise<void>;
}

/** A contract-checked client linked in memory to `server`. */
export async function linkClient(server: McpServer, name = 'test'): Promise<LinkedClient> {
  const [ct, st] = InMemoryTransport.createLinkedPair();
  await server.connect(st);
  const client = withContract(new Client({ name, version: '1.0.0' }));
  // The v1 SDK's client (a 2025-11-25 host) on the v2 SDK's in-memory pair: both speak JSON-RPC
  // message objects through the same start/send/close and on* members.
  await client.connect(ct as unknown as Transport);
  return {
    client,
    close: async () => {
      await Promise.all([client.close(), server.close()]);
    },
  };
}

/** The gateway's MCP server made of `deps`, and a client linked to it. */
export const connectMcp = (deps: McpServerDeps, name?: string): Promise<LinkedClient> =>
  linkClient(createMcpServer(deps), name);
