// Browser origins a gateway serves besides its own (`--cors-origin`, the inventory's
// `cors_origins`): each exactly as a browser sends it, scheme, host and port, nothing else.

/** The problem with `origin`, or undefined when it is an origin. */
export function originProblem(origin: unknown): string | undefined {
  const example = 'expected an origin such as https://dash.example';
  if (typeof origin !== 'string') return `${example}, got ${JSON.stringify(origin ?? null)}`;
  let u: URL;
  try {
    u = new URL(origin);
  } catch {
    return `${example}, got '${origin}'`;
  }
  if (u.origin !== origin || (u.protocol !== 'http:' && u.protocol !== 'https:')) {
    return `${example} (scheme, host, port only), got '${origin}'`;
  }
  return undefined;
}
