// The gateway as an OAuth 2.1 resource server (MCP's authorization, RFC 9728, RFC 8707):
// it publishes protected resource metadata naming its issuer, and verifies each JWT access
// token (RFC 9068) against the issuer's keys: signature, algorithm (pinned), `iss`, `aud`
// (this gateway's resource URI, so a token minted for another service is refused here),
// `exp` and `nbf` with a small skew. The issuer's metadata is discovered once (RFC 8414, then
// OpenID discovery) and its JWKS cached by jose, fetched again when a token names a key it
// does not hold (rotation) and at most every cooldown. The grants file matches principals by
// the token's claims (grants/source.ts). Opaque tokens are refused: introspection would make
// the issuer a dependency of every call.
import { FleetError } from '@fleetls/core';
import { createRemoteJWKSet, type JWTPayload, errors as joseErrors, jwtVerify } from 'jose';
import { looksLikeJwt, type OAuthSettings, TokenRefusal } from './bearer.js';
import type { DashboardSignIn } from './dashboard-sign-in.js';

export type { OAuthSettings } from './bearer.js';

/** Asymmetric algorithms only: a shared-secret HS256 token could be forged by anyone holding the secret. */
export const OAUTH_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'ES384', 'EdDSA'];
/** Clock skew allowed on exp and nbf, in seconds. */
const SKEW_S = 30;
const DISCOVERY_TIMEOUT_MS = 5000;

/** `--oauth-issuer` and `--oauth-audience`, checked before anything listens. */
export function oauthSettings(
  issuer: string | undefined,
  audience: string | undefined,
  dashboardClient?: string,
): OAuthSettings | undefined {
  if (issuer === undefined && audience === undefined) {
    if (dashboardClient !== undefined) {
      throw new FleetError('invalid_argument', '--oauth-dashboard-client needs --oauth-issuer and --oauth-audience');
    }
    return undefined;
  }
  if (issuer === undefined || audience === undefined) {
    throw new FleetError(
      'invalid_argument',
      "--oauth-issuer and --oauth-audience go together: the issuer whose tokens are accepted, and this gateway's resource URI they must be minted for",
    );
  }
  for (const [flag, v] of [
    ['--oauth-issuer', issuer],
    ['--oauth-audience', audience],
  ] as const) {
    let u: URL;
    try {
      u = new URL(v);
    } catch {
      throw new FleetError('invalid_argument', `${flag}: expected an absolute URL, as https://id.example, got '${v}'`);
    }
    if (u.protocol !== 'https:' && !/^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/.test(u.hostname)) {
      throw new FleetError('invalid_argument', `${flag}: expected an https URL (http only on loopback), got '${v}'`);
    }
    if (u.hash !== '') throw new FleetError('invalid_argument', `${flag}: a URL without a #fragment, got '${v}'`);
  }
  if (dashboardClient !== undefined && !/^[\x21-\x7e]{1,255}$/.test(dashboardClient)) {
    throw new FleetError(
      'invalid_argument',
      `--oauth-dashboard-client: expected a client_id, got '${dashboardClient}'`,
    );
  }
  return { issuer, audience, ...(dashboardClient !== undefined ? { dashboardClient } : {}) };
}

interface IssuerMetadata {
  jwks_uri: string;
  authorization_endpoint?: string;
  token_endpoint?: string;
}

export class OAuthVerifier {
  private jwks: ReturnType<typeof createRemoteJWKSet> | undefined;
  private discovering: Promise<ReturnType<typeof createRemoteJWKSet>> | undefined;
  private meta: IssuerMetadata | undefined;

  constructor(readonly settings: OAuthSettings) {}

  /** The claims of a valid access token for this resource, or a TokenRefusal saying why not. */
  async verify(token: string): Promise<JWTPayload> {
    if (!looksLikeJwt(token)) {
      throw new TokenRefusal(
        'invalid_token',
        'the access token is not a JWT: this gateway verifies JWT access tokens (RFC 9068) of its issuer itself, and refuses opaque ones; ask the authorization server for a JWT access token for this resource',
      );
    }
    const jwks = await this.keys();
    try {
      const { payload } = await jwtVerify(token, jwks, {
        issuer: this.settings.issuer,
        audience: this.settings.audience,
        algorithms: OAUTH_ALGORITHMS,
        clockTolerance: SKEW_S,
        requiredClaims: ['exp'],
      });
      return payload;
    } catch (err) {
      throw new TokenRefusal('invalid_token', refusalWords(err, this.settings));
    }
  }

  /** The issuer's key set, its location discovered at the first token (and again after a failure). */
  private keys(): Promise<ReturnType<typeof createRemoteJWKSet>> {
    if (this.jwks) return Promise.resolve(this.jwks);
    this.discovering ??= discover(this.settings.issuer).then(
      (meta) => {
        this.meta = meta;
        // jose caches the set, and fetches it again for a key id it does not hold (rotation).
        this.jwks = createRemoteJWKSet(new URL(meta.jwks_uri), { cooldownDuration: 30_000, cacheMaxAge: 600_000 });
        return this.jwks;
      },
      (err: unknown) => {
        this.discovering = undefined;
        throw new FleetError('unavailable', `OAuth issuer ${this.settings.issuer}: ${(err as Error).message}`);
      },
    );
    return this.discovering;
  }

  /** The dashboard's sign-in: the issuer's endpoints and the public client; undefined without --oauth-dashboard-client. */
  async dashboardSignIn(scopes: string[]): Promise<DashboardSignIn | undefined> {
    const client = this.settings.dashboardClient;
    if (client === undefined) return undefined;
    await this.keys();
    const meta = this.meta;
    if (!meta?.authorization_endpoint || !meta.token_endpoint) {
      throw new FleetError(
        'unavailable',
        `OAuth issuer ${this.settings.issuer}: its metadata names no authorization_endpoint or token_endpoint`,
      );
    }
    return {
      issuer: this.settings.issuer,
      authorization_endpoint: meta.authorization_endpoint,
      token_endpoint: meta.token_endpoint,
      client_id: client,
      resource: this.settings.audience,
      scope: scopes.join(' '),
    };
  }
}

/** The token's fault in words a client can act on, never the token itself. */
function refusalWords(err: unknown, s: OAuthSettings): string {
  if (err instanceof joseErrors.JWTExpired) return 'the access token has expired';
  if (err instanceof joseErrors.JWTClaimValidationFailed) {
    if (err.claim === 'aud') return `the access token is not for this resource: its audience must be ${s.audience}`;
    if (err.claim === 'iss') return `the access token is not from this gateway's issuer ${s.issuer}`;
    if (err.claim === 'nbf') return 'the access token is not valid yet';
    return `the access token's ${err.claim} claim is not valid`;
  }
  if (err instanceof joseErrors.JWSSignatureVerificationFailed || err instanceof joseErrors.JWKSNoMatchingKey) {
    return "the access token's signature does not verify with the issuer's keys";
  }
  if (err instanceof joseErrors.JOSEAlgNotAllowed) {
    return `the access token's algorithm is not one this gateway accepts (${OAUTH_ALGORITHMS.join(', ')})`;
  }
  return 'the access token is malformed';
}

/**
 * The issuer's `jwks_uri` and endpoints: RFC 8414 metadata (the well-known path inserted before the issuer's
 * own path), else OpenID Connect discovery; the metadata must name the same issuer.
 */
async function discover(issuer: string): Promise<IssuerMetadata> {
  const u = new URL(issuer);
  const path = u.pathname === '/' ? '' : u.pathname.replace(/\/$/, '');
  const candidates = [
    `${u.origin}/.well-known/oauth-authorization-server${path}`,
    `${u.origin}${path}/.well-known/openid-configuration`,
  ];
  const why: string[] = [];
  for (const url of candidates) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS), redirect: 'error' });
      if (!res.ok) {
        why.push(`${url}: HTTP ${res.status}`);
        continue;
      }
      const meta = (await res.json()) as { issuer?: unknown; jwks_uri?: unknown } & Partial<IssuerMetadata>;
      if (meta.issuer !== issuer) {
        why.push(`${url}: names issuer ${JSON.stringify(meta.issuer)}`);
        continue;
      }
      if (typeof meta.jwks_uri !== 'string') {
        why.push(`${url}: no jwks_uri`);
        continue;
      }
      return {
        jwks_uri: meta.jwks_uri,
        ...(typeof meta.authorization_endpoint === 'string'
          ? { authorization_endpoint: meta.authorization_endpoint }
          : {}),
        ...(typeof meta.token_endpoint === 'string' ? { token_endpoint: meta.token_endpoint } : {}),
      };
    } catch (err) {
      why.push(`${url}: ${(err as Error).message}`);
    }
  }
  throw new Error(`no authorization server metadata: ${why.join('; ')}`);
}
