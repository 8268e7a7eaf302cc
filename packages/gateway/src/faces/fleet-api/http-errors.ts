// A refusal on a Fleet API route of the HTTP port (no token, foreign Host or Origin, not ready)
// in the caller's own protocol, so that connect-es and gRPC-Web clients read the code and
// message instead of "HTTP 401" over a JSON-RPC body meant for /mcp. No @connectrpc import:
// serve-http writes these before the Fleet API (loaded lazily) is there.
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Connect's code for each HTTP status the port refuses with (connectrpc.com/docs/protocol#error-codes). */
const CODE_OF_STATUS: Record<number, { name: string; grpc: number }> = {
  400: { name: 'invalid_argument', grpc: 3 },
  401: { name: 'unauthenticated', grpc: 16 },
  403: { name: 'permission_denied', grpc: 7 },
  404: { name: 'unimplemented', grpc: 12 },
  405: { name: 'unimplemented', grpc: 12 },
  413: { name: 'resource_exhausted', grpc: 8 },
  429: { name: 'resource_exhausted', grpc: 8 },
  503: { name: 'unavailable', grpc: 14 },
};

export function writeFleetHttpError(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  const code = CODE_OF_STATUS[status] ?? { name: 'unknown', grpc: 2 };
  const type = String(req.headers['content-type'] ?? '');
  if (type.startsWith('application/grpc')) {
    // gRPC and gRPC-Web: a trailers-only response, the status in the headers.
    res.writeHead(200, {
      ...headers,
      'content-type': type,
      'grpc-status': String(code.grpc),
      'grpc-message': encodeURIComponent(message),
    });
    res.end();
    return;
  }
  const error = { code: code.name, message };
  if (type.startsWith('application/connect+')) {
    // A Connect stream: HTTP 200 and the error in its end-of-stream message (flag 0x02).
    const json = Buffer.from(JSON.stringify({ error }));
    const frame = Buffer.alloc(5 + json.length);
    frame[0] = 0x02;
    frame.writeUInt32BE(json.length, 1);
    json.copy(frame, 5);
    res.writeHead(200, { ...headers, 'content-type': type });
    res.end(frame);
    return;
  }
  // A Connect unary call (JSON or binary, POST or GET): the HTTP status and a JSON error body.
  res.writeHead(status, { ...headers, 'content-type': 'application/json' });
  res.end(JSON.stringify(error));
}
