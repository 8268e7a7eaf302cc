// The dashboard's own calls beside the Fleet API, behind the HTTP port's token and origin
// checks (faces/mcp/http.ts): the gateway's cached host status, read by every tab alike.
//   GET  /dashboard/api/hosts?host=SELECTOR        the cache (no probe unless it is empty)
//   POST /dashboard/api/hosts/check?host=SELECTOR  check now, then the cache
//   GET  /dashboard/api/me                         who the page is signed in as, and what it may see
//   GET  /dashboard/api/roots?host=SELECTOR        where a view opens (web/roots.ts)
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FleetError } from '@fleetls/core';
import type { Fleet } from '../../fleet/fleet-types.js';
import type { GatewayOptions } from '../../fleet/options.js';
import type { HostStatusCache } from './host-status.js';
import { rootsOf } from './roots.js';

export const DASHBOARD_API_PREFIX = '/dashboard/api/';

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

/**
 * `granted`: the selector as the request's grant lets it reach (narrowed to the granted hosts,
 * or refused with permission_denied), with --grants; the page shows only those hosts.
 * `loaded`: the fleet and its options, for the roots a view opens on.
 */
export function createDashboardApi(
  cache: () => HostStatusCache,
  granted: (req: IncomingMessage, selector: string) => string = (_req, selector) => selector,
  whoami: (req: IncomingMessage) => object = () => ({}),
  loaded?: () => { fleet: Fleet; options: GatewayOptions },
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const route = `${req.method} ${url.pathname.slice(DASHBOARD_API_PREFIX.length)}`;
    try {
      if (route === 'GET me') return json(res, 200, whoami(req));
      const selector = granted(req, url.searchParams.get('host') || 'all');
      if (route === 'GET hosts') return json(res, 200, await cache().read(selector));
      if (route === 'GET roots' && loaded) {
        const { fleet, options } = loaded();
        return json(res, 200, await rootsOf(fleet, options, selector));
      }
      if (route === 'POST hosts/check') {
        await cache().check(selector);
        return json(res, 200, await cache().read(selector));
      }
      return json(res, 404, { error: { code: 'not_found', message: `no dashboard call ${route}` } });
    } catch (err) {
      const fe = FleetError.from(err);
      const status = fe.code === 'invalid_argument' ? 400 : fe.code === 'permission_denied' ? 403 : 500;
      json(res, status, { error: { code: fe.code, message: fe.message } });
    }
  };
}
