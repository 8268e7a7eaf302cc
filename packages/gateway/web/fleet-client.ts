// The Fleet API from the browser, over the Connect protocol with JSON (plain fetch): unary
// calls, and the server-streaming Walk as enveloped JSON messages read as they arrive; and
// the dashboard's own calls (/dashboard/api/*: the gateway's cached host status).
// The bearer token is sent when the page has one; nothing else is kept anywhere.

export class FleetCallError extends Error {
  constructor(
    readonly code: string,
    message: string,
    /** HTTP status of the answer. */
    readonly status = 0,
  ) {
    super(message);
  }
}

const PREFIX = '/fleetls.v1.Fleet/';

function headers(token: string | undefined, contentType: string): Record<string, string> {
  const h: Record<string, string> = { 'content-type': contentType, 'connect-protocol-version': '1' };
  if (token) h.authorization = `Bearer ${token}`;
  return h;
}

async function failure(res: Response): Promise<FleetCallError> {
  const body = (await res.json().catch(() => ({}))) as {
    code?: string;
    message?: string;
    error?: { code?: string | number; message?: string };
  };
  const message = body.message ?? body.error?.message ?? res.statusText;
  if (res.status === 401) return new FleetCallError('unauthenticated', message, 401);
  const code = body.code ?? (typeof body.error?.code === 'string' ? body.error.code : `http_${res.status}`);
  return new FleetCallError(code, message, res.status);
}

export interface CallOptions {
  token: string | undefined;
  signal?: AbortSignal;
}

export async function unary<T>(method: string, request: object, o: CallOptions): Promise<T> {
  const res = await fetch(PREFIX + method, {
    method: 'POST',
    headers: headers(o.token, 'application/json'),
    body: JSON.stringify(request),
    signal: o.signal,
  });
  if (!res.ok) throw await failure(res);
  return (await res.json()) as T;
}

/** GET or POST one of /dashboard/api/*. */
export async function dashboardCall<T>(method: 'GET' | 'POST', path: string, o: CallOptions): Promise<T> {
  const res = await fetch(`/dashboard/api/${path}`, {
    method,
    headers: o.token ? { authorization: `Bearer ${o.token}` } : {},
    signal: o.signal,
  });
  if (!res.ok) throw await failure(res);
  return (await res.json()) as T;
}

/** One Connect envelope: flags (1 byte), length (4 bytes, big-endian), the JSON message. */
function envelope(message: object): Uint8Array<ArrayBuffer> {
  const json = new TextEncoder().encode(JSON.stringify(message));
  const out = new Uint8Array(5 + json.length);
  new DataView(out.buffer).setUint32(1, json.length);
  out.set(json, 5);
  return out;
}

export async function serverStream<T>(
  method: string,
  request: object,
  o: CallOptions,
  onMessage: (m: T) => void,
): Promise<void> {
  const res = await fetch(PREFIX + method, {
    method: 'POST',
    headers: headers(o.token, 'application/connect+json'),
    body: envelope(request),
    signal: o.signal,
  });
  if (!res.ok || !res.body) throw await failure(res);
  const reader = res.body.getReader();
  let buf = new Uint8Array(0);
  for (;;) {
    const { done, value } = await reader.read();
    if (value) {
      const joined = new Uint8Array(buf.length + value.length);
      joined.set(buf);
      joined.set(value, buf.length);
      buf = joined;
    }
    while (buf.length >= 5) {
      const flags = buf[0];
      const len = new DataView(buf.buffer, buf.byteOffset).getUint32(1);
      if (buf.length < 5 + len) break;
      const msg = JSON.parse(new TextDecoder().decode(buf.subarray(5, 5 + len)));
      buf = buf.slice(5 + len);
      // Flag 2 marks the end of the stream, with the error if the call failed.
      if (flags & 2) {
        if (msg.error) throw new FleetCallError(msg.error.code ?? 'unknown', msg.error.message ?? 'stream failed');
        return;
      }
      onMessage(msg as T);
    }
    if (done) return;
  }
}
