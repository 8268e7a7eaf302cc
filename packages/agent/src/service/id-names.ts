// Owner and group filters may name a user or group; the agent resolves them on its own
// host (NSS through getent, as `find -user` would), so core compares numbers only.
import { execFile } from 'node:child_process';
import type { FilterFeature, FindFilter, IdSpec, WalkRequest } from '@fleetls/core';
import { FleetError, filterFeatures, withoutFeatures } from '@fleetls/core';

const LOOKUP_TIMEOUT_MS = 5000;

function getent(db: 'passwd' | 'group', name: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    // No shell; the name was checked by core (letters, digits, '._-', no leading '-'), and '--' ends options.
    execFile('getent', [db, '--', name], { timeout: LOOKUP_TIMEOUT_MS, encoding: 'utf8' }, (err, stdout) => {
      // getent exits 2 when there is no such name.
      if (err && (err as { code?: unknown }).code === 2) return resolve(undefined);
      if (err) return reject(new FleetError('internal', `cannot look up ${name} with getent: ${err.message}`));
      const id = Number(stdout.split(':')[2]);
      resolve(Number.isInteger(id) ? id : undefined);
    });
  });
}

async function resolveId(arg: 'owner' | 'group', spec: IdSpec): Promise<IdSpec> {
  if ('id' in spec) return spec;
  const id = await getent(arg === 'owner' ? 'passwd' : 'group', spec.name);
  if (id === undefined) {
    throw new FleetError(
      'invalid_argument',
      `${arg}: no ${arg === 'owner' ? 'user' : 'group'} named "${spec.name}" on this host`,
    );
  }
  return { id };
}

/** The request with owner and group names turned into this host's ids. */
export async function resolveFilterNames(req: WalkRequest): Promise<WalkRequest> {
  const f = req.filter;
  if (!f || (f.owner === undefined && f.group === undefined)) return req;
  const filter: FindFilter = { ...f };
  if (f.owner) filter.owner = await resolveId('owner', f.owner);
  if (f.group) filter.group = await resolveId('group', f.group);
  return { ...req, filter };
}

/**
 * The request as a build that implements only `features` sees it: the fields it does not
 * know are gone, as proto3 drops unknown fields. Every release implements all of core's FILTER_FEATURES;
 * a narrower list stands in for an older agent in tests.
 */
export function knownFilterOnly(req: WalkRequest, features: readonly FilterFeature[]): WalkRequest {
  if (!req.filter) return req;
  const unknown = filterFeatures(req.filter).filter((k) => !features.includes(k));
  return unknown.length === 0 ? req : { ...req, filter: withoutFeatures(req.filter, unknown) };
}
