// grpc.health.v1 as grpc-health-check's HealthImplementation serves it (the same answers,
// refusals and watch stream), over @fleetls/proto's hand codec: the package loads its .proto
// with proto-loader and protobufjs when imported, which an agent at rest held for nothing.
import { healthService, type ServingStatus } from '@fleetls/proto/health';
import * as grpc from '@grpc/grpc-js';

/** grpc-health-check's bound on List: more services than this is RESOURCE_EXHAUSTED. */
const LIST_LIMIT = 100;

type Watcher = (status: ServingStatus) => void;

export class AgentHealth {
  private readonly statuses = new Map<string, ServingStatus>();
  private readonly watchers = new Map<string, Set<Watcher>>();

  constructor(initial: Record<string, ServingStatus>) {
    for (const [service, status] of Object.entries(initial)) this.statuses.set(service, status);
  }

  setStatus(service: string, status: ServingStatus): void {
    this.statuses.set(service, status);
    for (const watcher of this.watchers.get(service) ?? []) watcher(status);
  }

  addToServer(server: Pick<grpc.Server, 'addService'>): void {
    server.addService(healthService(), {
      Check: (
        call: grpc.ServerUnaryCall<{ service: string }, unknown>,
        callback: grpc.sendUnaryData<{ status: ServingStatus }>,
      ) => {
        const service = call.request.service;
        const status = this.statuses.get(service);
        if (status) callback(null, { status });
        else callback({ code: grpc.status.NOT_FOUND, details: `Health status unknown for service ${service}` });
      },
      Watch: (call: grpc.ServerWritableStream<{ service: string }, { status: ServingStatus }>) => {
        const service = call.request.service;
        const watcher: Watcher = (status) => call.write({ status });
        const set = this.watchers.get(service) ?? new Set();
        this.watchers.set(service, set.add(watcher));
        call.on('cancelled', () => this.watchers.get(service)?.delete(watcher));
        call.write({ status: this.statuses.get(service) ?? 'SERVICE_UNKNOWN' });
      },
      List: (
        _call: grpc.ServerUnaryCall<unknown, unknown>,
        callback: grpc.sendUnaryData<{ statuses: Record<string, { status: ServingStatus }> }>,
      ) => {
        if (this.statuses.size > LIST_LIMIT) {
          callback({ code: grpc.status.RESOURCE_EXHAUSTED, details: 'Too many services to list.' }, null);
          return;
        }
        const statuses: Record<string, { status: ServingStatus }> = {};
        for (const [service, status] of this.statuses) statuses[service] = { status };
        callback(null, { statuses });
      },
    });
  }
}
