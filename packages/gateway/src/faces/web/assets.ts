// The dashboard's files (built by web/build.mjs into dist/web-app/), read once and served at
// / of the HTTP port. They hold no secret: the page asks for the token itself. A build
// without them (tsc alone, no web/build.mjs) serves no dashboard.
import type { ServerResponse } from 'node:http';
import { DASHBOARD_FILES, readDashboardFile } from './files.js';

const FILES: Record<string, { file: (typeof DASHBOARD_FILES)[number]; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/index.html': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
  '/favicon.svg': { file: 'favicon.svg', type: 'image/svg+xml' },
  // Browsers ask for /favicon.ico whatever the page links; the same icon, so no 404 in the console.
  '/favicon.ico': { file: 'favicon.svg', type: 'image/svg+xml' },
};

/** The page may load only its own files and call only its own server. */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};

export interface Dashboard {
  /** Answers a GET of one of the dashboard's paths; false when `pathname` is not one. */
  serve(pathname: string, res: ServerResponse): boolean;
}

/** The in-chat treemap's page (the MCP App of disk_usage), or undefined in a build without the web files. */
export function loadDuApp(): string | undefined {
  try {
    return readDashboardFile('du-app.html').toString('utf8');
  } catch {
    return undefined;
  }
}

/**
 * `connect`: origins the page may call besides its own server (the OAuth issuer's token
 * endpoint, when the dashboard signs in with it).
 */
export function loadDashboard(connect: readonly string[] = []): Dashboard | undefined {
  const bodies = new Map<string, Buffer>();
  try {
    for (const file of DASHBOARD_FILES) bodies.set(file, readDashboardFile(file));
  } catch {
    return undefined;
  }
  return {
    serve(pathname, res) {
      const f = FILES[pathname];
      if (!f) return false;
      const headers =
        connect.length === 0
          ? SECURITY_HEADERS
          : {
              ...SECURITY_HEADERS,
              'content-security-policy': SECURITY_HEADERS['content-security-policy'].replace(
                "connect-src 'self'",
                `connect-src 'self' ${connect.join(' ')}`,
              ),
            };
      res.writeHead(200, { 'content-type': f.type, ...headers });
      res.end(bodies.get(f.file));
      return true;
    },
  };
}
