// `fleetls serve --grants FILE`: the file read before anything listens (a bad one refuses the
// start, naming the key), then read again on SIGHUP and whenever it changes; and the
// dashboard's host selector as the request's grant lets it reach.
import type { IncomingMessage } from 'node:http';
import type { Fleet } from '../../fleet/types.js';
import { narrowSelector } from '../../grants/grant.js';
import { Grants } from '../../grants/source.js';
import type { Logger } from '../../logger.js';
import { requestAccess } from '../mcp/http-principal.js';
import type { CliIo } from './io.js';

/** The grants of --grants, watched and reloaded on SIGHUP until close(); undefined without the flag. */
export async function openGrants(flags: { grants?: string }, io: CliIo, logger: Logger): Promise<Grants | undefined> {
  if (flags.grants === undefined) return undefined;
  const grants = Grants.fromFile(flags.grants, logger);
  grants.watch();
  const off = io.onHangup?.(() => grants.reload('SIGHUP'));
  logger.info({ grants: flags.grants, principals: grants.principals.map((p) => p.name) }, 'grants loaded');
  const close = grants.close.bind(grants);
  grants.close = () => {
    off?.();
    close();
  };
  return grants;
}

/** The dashboard's selector narrowed to the request's grant (a comma list of its hosts), or as given without one. */
export function grantedSelector(req: IncomingMessage, selector: string, fleet: Fleet): string {
  const spec = requestAccess(req)?.spec;
  if (!spec) return selector;
  return narrowSelector(spec, selector, fleet.hosts())
    .hosts.map((h) => h.name)
    .join(',');
}
