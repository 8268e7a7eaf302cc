// The Fleet API from the browser, over the Connect protocol with JSON (plain fetch): unary
// calls (a scan is followed by its cursor, page after page, not by a stream); and the
// dashboard's own calls (/dashboard/api/*: the gateway's cached host status).
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

export async function unary<T>(method: string, request: object, options: CallOptions): Promise<T> {
  const res = await fetch(PREFIX + method, {
    method: 'POST',
    headers: headers(options.token, 'application/json'),
    body: JSON.stringify(request),
    signal: options.signal,
  });
  if (!res.ok) throw await failure(res);
  return (await res.json()) as T;
}

/** GET or POST one of /dashboard/api/*. */
export async function dashboardCall<T>(method: 'GET' | 'POST', path: string, options: CallOptions): Promise<T> {
  const res = await fetch(`/dashboard/api/${path}`, {
    method,
    headers: options.token ? { authorization: `Bearer ${options.token}` } : {},
    signal: options.signal,
  });
  if (!res.ok) throw await failure(res);
  return (await res.json()) as T;
}
