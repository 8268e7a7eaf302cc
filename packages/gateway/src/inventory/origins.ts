// Browser origins a gateway serves besides its own (`--cors-origin`, the inventory's
// `cors_origins`): each exactly as a browser sends it, scheme, host and port, nothing else.

/** The problem with `o` as an origin, or undefined when it is one. */
export function originProblem(o: unknown): string | undefined {
  const example = 'expected an origin such as https://dash.example';
  if (typeof o !== 'string') return `${example}, got ${JSON.stringify(o ?? null)}`;
  let u: URL;
  try {
    u = new URL(o);
  } catch {
    return `${example}, got '${o}'`;
  }
  if (u.origin !== o || (u.protocol !== 'http:' && u.protocol !== 'https:')) {
    return `${example} (scheme, host, port only), got '${o}'`;
  }
  return undefined;
}
