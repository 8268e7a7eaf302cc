// The agent's audit trail: one JSON line per RPC ("audit": "rpc"), whoever called and
// however it ended, beside the operational lines. The caller is the client certificate's
// subject under mTLS, else the transport (the runtime's callerOf).
import type { Logger } from '@fleetls/runtime';

export interface RpcAudit {
  caller: string;
  /** The method's name (Walk, Stat; or whatever a refused call asked for). */
  rpc: string;
  path: string | undefined;
  /** Rows sent (Walk: entries; Stat: 1 when answered). */
  rows: number;
  bytes: number;
  ms: number;
  /** ok, cancelled, or the FleetError code it failed with. */
  outcome: string;
}

export function auditRpc(logger: Logger, audit: RpcAudit): void {
  logger.info({ audit: 'rpc', ...audit }, 'audit');
}
