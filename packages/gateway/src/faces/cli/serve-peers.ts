// A serving gateway on NATS answers the shards its peer gateways send it (fleet/peers/): the
// tools' own task for the shard, held to this gateway's grants for the principal that called.
// A peer is trusted as far as its NATS credentials let it publish to this gateway's subject
// (gateways' credentials only), and never past what this gateway would let that principal do.
import { FleetError } from '@fleetls/core';
import type { LoadedFleet } from '../../fleet/fleet.js';
import type { FleetHost, PeerCaller } from '../../fleet/fleet-types.js';
import type { GatewayOptions } from '../../fleet/options.js';
import type { ShardTask } from '../../fleet/peers/protocol.js';
import { LOCAL_PRINCIPAL } from '../../grants/file.js';
import { checkPath, grantedHosts, grantRefusal, mayCall } from '../../grants/grant.js';
import type { Grants } from '../../grants/source.js';
import { shardTask } from '../../tools/shared/host-walks.js';

/** Serves the peers' shards when the fleet is on NATS (else nothing). */
export function servePeers(fleet: LoadedFleet, options: GatewayOptions, grants: Grants | undefined): void {
  fleet.peers?.serve({
    fleet,
    options,
    task: shardTask,
    authorize: (caller, shard, hosts) => authorizeShard(grants, caller, shard, hosts),
  });
}

/**
 * Refuses a shard this gateway's grants do not allow its caller: as a call of its own by that
 * principal would be (tool, path, every host). Without a grants file every caller may do
 * everything here, and so may `local` when the file does not name it (as grants/source.ts);
 * a principal the file does not name is refused, and the calling gateway asks those hosts itself.
 */
export function authorizeShard(
  grants: Grants | undefined,
  caller: PeerCaller,
  shard: ShardTask,
  hosts: FleetHost[],
): void {
  if (!grants) return;
  const spec = grants.principals.find((p) => p.name === caller.principal);
  if (!spec) {
    if (caller.principal === LOCAL_PRINCIPAL) return;
    throw new FleetError('permission_denied', `principal '${caller.principal}' is not in this gateway's grants`);
  }
  if (!mayCall(spec, caller.tool)) throw grantRefusal(spec, `${spec.name} may not call ${caller.tool}`);
  checkPath(spec, shard.req.path);
  const granted = new Set(grantedHosts(spec, hosts).map((h) => h.name));
  const outside = hosts.find((h) => !granted.has(h.name));
  if (outside) throw grantRefusal(spec, `${spec.name} may not reach host ${outside.name}`);
}
