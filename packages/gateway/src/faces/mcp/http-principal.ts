// Who is calling on the HTTP port. The bearer token file may hold several tokens, one per
// line; each is its own principal (a scan or task one token started is refused to another),
// named by its digest: the token itself is never kept or logged. faces/mcp/http.ts checks the
// token and records the principal of the request here; the Fleet API's Connect handler on
// the same port reads it back, so both faces of a request agree on whose it is. With a grants
// file (--grants) the principal is the file's, and its grant travels with the request too.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { CallerAccess } from '../../grants/access.js';

/** The tokens a `--token-file` / `$FLEETLS_TOKEN` value holds: one per line, blank lines ignored. */
export function bearerTokens(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

export interface TokenCheck {
  /** The principal the header's token names, or undefined when it matches none. */
  principal(header: string | undefined): string | undefined;
}

/**
 * Matches an `Authorization: Bearer …` header against every token, in constant time whatever
 * the header (digests have one length, and every token is compared), so neither a token nor
 * its length nor which one matched leaks.
 */
export function tokenCheck(tokens: readonly string[]): TokenCheck {
  const wanted = tokens.map((t) => ({
    d: digest(t),
    principal: `http:bearer:${digest(t).toString('hex').slice(0, 16)}`,
  }));
  return {
    principal(header) {
      const m = /^Bearer\s+(.+)$/i.exec(header ?? '');
      // An empty token is never configured (bearerTokens drops blank lines), so '' matches nothing.
      const got = digest(m ? m[1].trim() : '');
      let found: string | undefined;
      for (const w of wanted) if (timingSafeEqual(got, w.d) && found === undefined) found = w.principal;
      return found;
    },
  };
}

const principals = new WeakMap<IncomingMessage, string>();

export function setRequestPrincipal(req: IncomingMessage, principal: string): void {
  principals.set(req, principal);
}

/** The principal faces/mcp/http.ts found for `req` (undefined: not checked there). */
export function requestPrincipal(req: IncomingMessage): string | undefined {
  return principals.get(req);
}

const accesses = new WeakMap<IncomingMessage, CallerAccess>();

export function setRequestAccess(req: IncomingMessage, access: CallerAccess): void {
  accesses.set(req, access);
}

/** The grant faces/mcp/http.ts found for `req` (undefined: no grants file). */
export function requestAccess(req: IncomingMessage): CallerAccess | undefined {
  return accesses.get(req);
}
