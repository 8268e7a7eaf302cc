// What the gateway says to an OAuth client, without verifying anything (no jose here: the
// HTTP door loads this, and jose only with --oauth-issuer): RFC 9728's protected resource
// metadata and where it is, and RFC 6750's WWW-Authenticate challenges.

export interface OAuthSettings {
  /** The authorization server's issuer identifier (`--oauth-issuer`). */
  issuer: string;
  /** This gateway's resource URI (`--oauth-audience`): the `aud` every token must carry. */
  audience: string;
  /**
   * `--oauth-dashboard-client`: the issuer's public client (no secret) the dashboard signs in
   * as, by authorization code and PKCE, its redirect URI the dashboard's own address.
   */
  dashboardClient?: string;
}

/** Why a token was refused, as the `WWW-Authenticate` challenge says it (RFC 6750 §3.1). */
export class TokenRefusal extends Error {
  constructor(
    readonly error: 'invalid_token' | 'invalid_request',
    message: string,
  ) {
    super(message);
  }
}

/** Whether a bearer value has the shape of a JWS compact JWT (three base64url parts). */
export function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token);
}

/** Where this resource's metadata is (RFC 9728 §3.1: the well-known path before the resource's own path). */
export function resourceMetadataUrl(settings: OAuthSettings): string {
  const u = new URL(settings.audience);
  const path = u.pathname === '/' ? '' : u.pathname.replace(/\/$/, '');
  return `${u.origin}/.well-known/oauth-protected-resource${path}`;
}

/** RFC 9728 protected resource metadata of this gateway. */
export function protectedResourceMetadata(settings: OAuthSettings, scopes: string[]): Record<string, unknown> {
  return {
    resource: settings.audience,
    authorization_servers: [settings.issuer],
    bearer_methods_supported: ['header'],
    ...(scopes.length > 0 ? { scopes_supported: scopes } : {}),
    resource_name: 'fleetls',
  };
}

const quoted = (s: string) => `"${s.replace(/["\\]/g, '')}"`;

/** The `WWW-Authenticate` value of a refusal (RFC 6750 §3, RFC 9728 §5.1). */
export function bearerChallenge(
  metadataUrl: string,
  refusal?: { error: string; description?: string; scope?: string },
): string {
  const parts = [`resource_metadata=${quoted(metadataUrl)}`];
  if (refusal) {
    parts.push(`error=${quoted(refusal.error)}`);
    if (refusal.description) parts.push(`error_description=${quoted(refusal.description)}`);
    if (refusal.scope) parts.push(`scope=${quoted(refusal.scope)}`);
  }
  return `Bearer ${parts.join(', ')}`;
}
