// `fleetls serve --grants FILE` (or the inventory's `grants:`): the file read before anything
// listens (a bad one refuses the start, naming the key), then read again on SIGHUP and
// whenever it changes; the CLI's `local`; and the dashboard's view of the request's grant.
import type { IncomingMessage } from 'node:http';
import { invalidArgument } from '@fleetls/core';
import type { Fleet } from '../../fleet/fleet-types.js';
import type { CallerAccess } from '../../grants/access.js';
import { grantedHosts, grantRefusal, mayCall, narrowSelector } from '../../grants/grant.js';
import type { OAuthVerifier } from '../../grants/oauth.js';
import { Grants } from '../../grants/source.js';
import { loadInventory } from '../../inventory/inventory-file.js';
import type { Logger } from '../../logger.js';
import { requestAccess } from '../mcp/http-principal.js';
import type { CliIo } from './io.js';

/**
 * The grants of --grants, else of the inventory's `grants:`, watched and reloaded on SIGHUP
 * until close(); undefined without either.
 */
export async function openGrants(
  flags: { grants?: string },
  io: CliIo,
  logger: Logger,
  inventoryFile?: string,
): Promise<Grants | undefined> {
  const file = flags.grants ?? inventoryGrantsFile(inventoryFile, io);
  if (file === undefined) return undefined;
  const grants = Grants.fromFile(file, logger);
  grants.watch();
  const off = io.onHangup?.(() => grants.reload('SIGHUP'));
  logger.info({ grants: file, principals: grants.principals.map((p) => p.name) }, 'grants loaded');
  const close = grants.close.bind(grants);
  grants.close = () => {
    off?.();
    close();
  };
  return grants;
}

/**
 * The inventory's `grants:`, read before anything listens (the inventory itself loads once
 * --http answers /readyz); an inventory that does not parse says so when it loads.
 */
function inventoryGrantsFile(inventoryFile: string | undefined, io: CliIo): string | undefined {
  if (inventoryFile === undefined) return undefined;
  try {
    return loadInventory({ inventoryPath: inventoryFile, env: io.env, cwd: io.cwd, checkFiles: false })?.grantsFile;
  } catch {
    return undefined;
  }
}

/**
 * A one-shot CLI run's caller: `local` of the inventory's grants file (everything unless it
 * names `local`); undefined without one, as before grants.
 */
export function cliAccess(grantsFile: string | undefined, logger: Logger): CallerAccess | undefined {
  return grantsFile === undefined ? undefined : Grants.fromFile(grantsFile, logger).local();
}

/**
 * `--oauth-issuer` and `--oauth-audience`: the gateway as an OAuth resource server, refused
 * without --grants (its principals are what a token's claims are matched against) and
 * without a network face. jose loads only then.
 */
export async function openOAuth(flags: {
  grants?: string;
  http?: string;
  grpc?: string;
  oauthIssuer?: string;
  oauthAudience?: string;
  oauthDashboardClient?: string;
}): Promise<OAuthVerifier | undefined> {
  if (flags.oauthIssuer === undefined && flags.oauthAudience === undefined && flags.oauthDashboardClient === undefined)
    return undefined;
  const { oauthSettings, OAuthVerifier } = await import('../../grants/oauth.js');
  const settings = oauthSettings(flags.oauthIssuer, flags.oauthAudience, flags.oauthDashboardClient);
  if (!settings) return undefined;
  if (flags.grants === undefined) {
    throw invalidArgument(
      '--oauth-issuer needs --grants: its principals name the token claims (oauth: { scope | sub | client_id | groups }) that may call, and what each may do',
    );
  }
  if (flags.http === undefined && flags.grpc === undefined) {
    throw invalidArgument('--oauth-issuer applies to --http and --grpc only');
  }
  return new OAuthVerifier(settings);
}

/**
 * The dashboard's host status for the request's grant: list_hosts' to read, its selector
 * narrowed to the granted hosts (a comma list of them); as given without grants.
 */
export function grantedSelector(req: IncomingMessage, selector: string, fleet: Fleet): string {
  const spec = requestAccess(req)?.spec;
  if (!spec) return selector;
  if (!mayCall(spec, 'list_hosts')) throw grantRefusal(spec, `${spec.name} may not call list_hosts`);
  return narrowSelector(spec, selector, fleet.hosts())
    .hosts.map((h) => h.name)
    .join(',');
}

/**
 * GET /dashboard/api/me: whom the page is signed in as and what it may see (its tools, hosts
 * and roots), so it shows only those views; `{}` without grants (everything, as before).
 */
export function whoami(req: IncomingMessage, fleet: Fleet, tools: readonly string[]): object {
  const access = requestAccess(req);
  if (!access) return {};
  const spec = access.spec;
  if (!spec) return { principal: access.principal };
  return {
    principal: access.principal,
    tools: tools.filter((t) => mayCall(spec, t)),
    hosts: grantedHosts(spec, fleet.hosts()).map((h) => h.name),
    paths: spec.paths,
  };
}
