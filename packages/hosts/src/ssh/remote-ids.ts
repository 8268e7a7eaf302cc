// Owner and group names of a filter, resolved on the SSH host itself (getent, through NSS,
// as `find -user` would), so the walk compares that host's numbers, as the agent does.
import { type FindFilter, FleetError, type IdSpec, shellQuote, type WalkRequest } from '@fleetls/core';

/** `getent passwd|group -- NAME`: one line `name:x:ID:...`, exit 2 when there is no such name. */
export function buildIdLookupCommand(db: 'passwd' | 'group', name: string): string {
  return `sh -c ${shellQuote(`LC_ALL=C getent ${db} -- ${shellQuote(name)}`)}`;
}

export function parseIdLookup(stdout: string): number | undefined {
  const id = Number(stdout.split('\n')[0]?.split(':')[2]);
  return Number.isInteger(id) && id >= 0 ? id : undefined;
}

type Exec = (command: string) => Promise<{ stdout: Buffer; code: number | null }>;

async function resolve(arg: 'owner' | 'group', spec: IdSpec, host: string, exec: Exec): Promise<IdSpec> {
  if ('id' in spec) return spec;
  const r = await exec(buildIdLookupCommand(arg === 'owner' ? 'passwd' : 'group', spec.name));
  const id = parseIdLookup(r.stdout.toString('utf8'));
  // getent exits 2 for "no such name"; anything else is a host that cannot answer.
  if (id === undefined && r.code !== 2) {
    throw new FleetError('internal', `${arg}: cannot look up "${spec.name}" on ${host} (getent exit ${r.code})`);
  }
  if (id === undefined) {
    throw new FleetError(
      'invalid_argument',
      `${arg}: no ${arg === 'owner' ? 'user' : 'group'} named "${spec.name}" on ${host}`,
    );
  }
  return { id };
}

/** The request with owner and group names turned into the remote host's ids. */
export async function resolveRemoteIds(req: WalkRequest, host: string, exec: Exec): Promise<WalkRequest> {
  const f = req.filter;
  if (!f || (f.owner === undefined && f.group === undefined)) return req;
  const filter: FindFilter = { ...f };
  if (f.owner) filter.owner = await resolve('owner', f.owner, host, exec);
  if (f.group) filter.group = await resolve('group', f.group, host, exec);
  return { ...req, filter };
}
