// Who a network caller is, from its `Authorization` header: a token of the grants file (by
// hash), else, when the gateway is an OAuth resource server, a verified access token whose
// claims a principal names. The refusals carry what HTTP says (status, WWW-Authenticate)
// and what gRPC says (the code), so each face answers in its own protocol.
import type { CallerAccess } from './access.js';
import { bearerChallenge, resourceMetadataUrl, TokenRefusal } from './bearer.js';
import type { OAuthVerifier } from './oauth.js';
import type { Grants } from './source.js';

export interface Refused {
  status: 401 | 403;
  code: 'unauthenticated' | 'permission_denied';
  message: string;
  challenge: string;
}

export type Authorized = { access: CallerAccess } | { refused: Refused };

export async function authorize(
  grants: Grants,
  oauth: OAuthVerifier | undefined,
  header: string | undefined,
): Promise<Authorized> {
  const access = grants.byBearer(header);
  if (access) return { access };
  if (!oauth) {
    return {
      refused: {
        status: 401,
        code: 'unauthenticated',
        message: 'missing or unknown bearer token',
        challenge: 'Bearer realm="fleetls"',
      },
    };
  }
  const meta = resourceMetadataUrl(oauth.settings);
  const token = /^Bearer\s+(.+)$/i.exec(header ?? '')?.[1]?.trim();
  if (!token) {
    return {
      refused: {
        status: 401,
        code: 'unauthenticated',
        message: `missing bearer token: get an access token for ${oauth.settings.audience} from ${oauth.settings.issuer}`,
        challenge: bearerChallenge(meta),
      },
    };
  }
  let claims: Record<string, unknown>;
  try {
    claims = await oauth.verify(token);
  } catch (err) {
    if (!(err instanceof TokenRefusal)) throw err;
    return {
      refused: {
        status: 401,
        code: 'unauthenticated',
        message: err.message,
        challenge: bearerChallenge(meta, { error: err.error, description: err.message }),
      },
    };
  }
  const found = grants.byClaims(claims);
  if (found) return { access: found };
  const scope = grants.scopes().join(' ');
  const message = `the access token names no principal of this gateway${scope ? `: it needs one of the scopes ${scope}` : ''}`;
  return {
    refused: {
      status: 403,
      code: 'permission_denied',
      message,
      challenge: bearerChallenge(meta, {
        error: 'insufficient_scope',
        description: message,
        ...(scope ? { scope } : {}),
      }),
    },
  };
}
