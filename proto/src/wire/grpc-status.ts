// FleetError codes ↔ gRPC statuses, the one table both sides of every fleetls gRPC
// service read: servers send `toStatus(err)`, clients read `codeFromStatus(status)`.
import { type Code, FleetError } from '@fleetls/core';
import { status } from '@grpc/grpc-js';

export const GRPC_STATUS: Record<Code, status> = {
  invalid_argument: status.INVALID_ARGUMENT,
  permission_denied: status.PERMISSION_DENIED,
  not_found: status.NOT_FOUND,
  unauthenticated: status.UNAUTHENTICATED,
  unavailable: status.UNAVAILABLE,
  deadline_exceeded: status.DEADLINE_EXCEEDED,
  cancelled: status.CANCELLED,
  resource_exhausted: status.RESOURCE_EXHAUSTED,
  internal: status.INTERNAL,
};

const CODE_OF_STATUS = new Map<status, Code>(
  (Object.entries(GRPC_STATUS) as [Code, status][]).map(([code, s]) => [s, code]),
);

/** What a client makes of a status. Statuses fleetls never sends (UNKNOWN, DATA_LOSS, …) are internal. */
export function codeFromStatus(grpcStatus: status): Code {
  // A CANCELLED the client did not initiate is the server going away (forceShutdown): a host
  // failure, not a cancel. A client's own cancel is recognised by its AbortSignal, not here.
  if (grpcStatus === status.CANCELLED) return 'unavailable';
  return CODE_OF_STATUS.get(grpcStatus) ?? 'internal';
}

/** Anything caught → the status object a server handler emits. */
export function toStatus(err: unknown): { code: status; details: string } {
  const fe = FleetError.from(err);
  return { code: GRPC_STATUS[fe.code], details: fe.message };
}
