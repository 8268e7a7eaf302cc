// GET /dashboard/oauth's answer, declared once for both its ends: the gateway writes it
// (oauth.ts) and the dashboard in the browser reads it (web/app.ts, a type-only import).
// It imports nothing, so the dashboard's own typecheck (DOM, no Node types) can read it.

/** What the dashboard needs to sign in with the issuer (authorization code + PKCE). */
export interface DashboardSignIn {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  client_id: string;
  resource: string;
  scope: string;
}
