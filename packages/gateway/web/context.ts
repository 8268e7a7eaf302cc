// What a view is given: calls that carry the token (and report a refused one to the sign-in
// flow), the URL state it renders, navigation that keeps that state in the address bar
// (History API: back and forward re-render), and a signal that aborts its work once left.
import { type CallOptions, dashboardCall, unary } from './fleet-client.js';

export interface ViewContext {
  params: URLSearchParams;
  signal: AbortSignal;
  call<T>(method: string, request: object): Promise<T>;
  api<T>(method: 'GET' | 'POST', path: string): Promise<T>;
  /** Push (or replace) the URL state and render it. */
  navigate(params: Record<string, string | undefined>, replace?: boolean): void;
}

export type View = (section: HTMLElement, ctx: ViewContext) => Promise<void> | void;

export function makeContext(
  params: URLSearchParams,
  signal: AbortSignal,
  token: () => string | undefined,
  guard: <T>(p: Promise<T>) => Promise<T>,
  navigate: ViewContext['navigate'],
): ViewContext {
  const o = (s: AbortSignal = signal): CallOptions => ({ token: token(), signal: s });
  return {
    params,
    signal,
    call: (method, request) => guard(unary(method, request, o())),
    api: (method, path) => guard(dashboardCall(method, path, o())),
    navigate,
  };
}

/** `?view=browse&host=…` from a record, dropping empty values. */
export function query(params: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, v);
  return `?${q.toString()}`;
}
