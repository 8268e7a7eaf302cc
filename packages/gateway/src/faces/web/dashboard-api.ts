// The dashboard's own calls beside the Fleet API, behind the HTTP port's token and origin
// checks (faces/mcp/http.ts): the gateway's cached host status, read by every tab alike.
//   GET  /dashboard/api/hosts?host=SELECTOR        the cache (no probe unless it is empty)
//   POST /dashboard/api/hosts/check?host=SELECTOR  check now, then the cache
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FleetError } from '@fleetls/core';
import type { HostStatusCache } from './host-status.js';

export const DASHBOARD_API_PREFIX = '/dashboard/api/';

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

export function createDashboardApi(
  cache: () => HostStatusCache,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const route = `${req.method} ${url.pathname.slice(DASHBOARD_API_PREFIX.length)}`;
    const selector = url.searchParams.get('host') || 'all';
    try {
      if (route === 'GET hosts') return json(res, 200, await cache().read(selector));
      if (route === 'POST hosts/check') {
        await cache().check(selector);
        return json(res, 200, await cache().read(selector));
      }
      return json(res, 404, { error: { code: 'not_found', message: `no dashboard call ${route}` } });
    } catch (err) {
      const fe = FleetError.from(err);
      json(res, fe.code === 'invalid_argument' ? 400 : 500, { error: { code: fe.code, message: fe.message } });
    }
  };
}
