// Raw HTTP to a real gateway's /mcp, as a browser, an attacker or a load generator sends it:
// any headers, no client library in between, one stateless JSON-RPC call per POST.
import { Agent, request as httpRequest } from 'node:http';

/** No pooling limit: a load test's concurrent calls each get their own connection. */
const UNPOOLED = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });

/** One raw POST with the headers a browser or an attacker would send. */
export function post(
  base: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string; headers: Record<string, string | string[] | undefined> }> {
  const { hostname, port } = new URL(base);
  const data = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: hostname,
        port,
        path,
        method: 'POST',
        agent: UNPOOLED,
        headers: {
          host: `${hostname}:${port}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': String(Buffer.byteLength(data)),
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

export const callTool = (name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id: 2,
  method: 'tools/call',
  params: { name, arguments: args },
});

/** The JSON-RPC result of a stateless POST (plain JSON or one SSE event). */
export function rpcResult(text: string): {
  isError?: boolean;
  content: { text: string }[];
  structuredContent?: unknown;
} {
  const json = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? '');
  const msg = JSON.parse(json) as { result?: never; error?: { message: string } };
  if (!msg.result) throw new Error(`no result: ${text}`);
  return msg.result;
}
