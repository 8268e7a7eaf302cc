// `fleetls serve --grants FILE`: the file read before anything listens (a bad one refuses the
// start, naming the key), then read again on SIGHUP and whenever it changes; and the
// dashboard's host selector as the request's grant lets it reach.
import type { IncomingMessage } from 'node:http';
import { invalidArgument } from '@fleetls/core';
import type { Fleet } from '../../fleet/types.js';
import { narrowSelector } from '../../grants/grant.js';
import type { OAuthVerifier } from '../../grants/oauth.js';
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
}): Promise<OAuthVerifier | undefined> {
  if (flags.oauthIssuer === undefined && flags.oauthAudience === undefined) return undefined;
  const { oauthSettings, OAuthVerifier } = await import('../../grants/oauth.js');
  const settings = oauthSettings(flags.oauthIssuer, flags.oauthAudience);
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

/** The dashboard's selector narrowed to the request's grant (a comma list of its hosts), or as given without one. */
export function grantedSelector(req: IncomingMessage, selector: string, fleet: Fleet): string {
  const spec = requestAccess(req)?.spec;
  if (!spec) return selector;
  return narrowSelector(spec, selector, fleet.hosts())
    .hosts.map((h) => h.name)
    .join(',');
}
