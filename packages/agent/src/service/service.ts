// The fleetls.v1.Agent service: Walk (server-streaming, back-pressured, cancellable) and
// Stat. Wire ↔ domain goes through @fleetls/proto's codec only; errors leave as gRPC statuses.
// The handlers speak to a WalkCall, not to grpc-js: the gRPC listener (grpcWalkCall below) and
// the NATS responder (carriers/nats-responder.ts) are two carriers of the same messages and the same code.

import type { FilterFeature, Observer, StatInfo, WalkObservation, WalkRequest } from '@fleetls/core';
import {
  DEFAULT_CEILINGS,
  FILTER_FEATURES,
  FleetError,
  fleetErrorAt,
  NOOP_OBSERVER,
  resolveWalkRequest,
  WalkTally,
} from '@fleetls/core';
import {
  AGENT_FEATURES_METADATA,
  AGENT_VERSION_METADATA,
  agentService,
  encodeStatResponse,
  toStatus,
  type WireStatRequestOut,
  type WireWalkRequestOut,
  wireToRequestInput,
} from '@fleetls/proto/agent-service';
import { callerOf } from '@fleetls/runtime';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { AgentConfig } from '../config/config.js';
import type { FsGuard } from '../walk/bounded-call.js';
import { WalkPool } from '../walk/pool.js';
import { type RunningWalk, startWireWalk, type WireBatch } from '../walk/walker.js';
import { auditRpc } from './audit.js';
import { knownFilterOnly, resolveFilterNames } from './id-names.js';
import { type AllowedRoots, resolveAllowedPath, resolveRoots } from './policy.js';
import { prepareWalk } from './prepare-walk.js';
import { statPath } from './stat.js';
import { createWalkAdmission } from './walk-admission.js';
import {
  failWalk,
  logWalkEnd,
  streamBatches,
  type WalkCall,
  type WalkProgress,
  withinCallDeadline,
} from './walk-call.js';

export function ceilingsOf(config: AgentConfig): typeof DEFAULT_CEILINGS {
  return { ...DEFAULT_CEILINGS, ...config.ceilings };
}

export interface AgentServiceHandle {
  /** Walks in flight. */
  active(): number;
}

export interface AgentServiceDeps {
  config: AgentConfig;
  logger: Logger;
  version: string;
  roots?: AllowedRoots;
  observer?: Observer;
  /** The request features this build implements; every release has them all (tests narrow it). */
  features?: readonly FilterFeature[];
  /** The walks' workers and hung mounts (default: a pool of this service's own). */
  pool?: WalkPool;
}

export interface AgentCallHandlers {
  walk(call: WalkCall): Promise<void>;
  /** The Stat answer's bytes (a StatResponse), or throws what toStatus() turns into the call's status. */
  stat(request: WireStatRequestOut, caller: string): Promise<Buffer>;
  readonly version: string;
  readonly features: readonly FilterFeature[];
  active(): number;
}

/** The Stat handler: one path resolved inside the roots, stat'ed under the guard, audited once. */
function createStatHandler(
  logger: Logger,
  roots: AllowedRoots,
  guard: FsGuard,
  version: string,
): (request: WireStatRequestOut, caller: string) => Promise<Buffer> {
  return async function stat(request: WireStatRequestOut, caller: string): Promise<Buffer> {
    const started = Date.now();
    const audit = (outcome: string, bytes: number) =>
      auditRpc(logger, {
        caller,
        rpc: 'Stat',
        path: request?.path,
        rows: outcome === 'ok' ? 1 : 0,
        bytes,
        ms: Date.now() - started,
        outcome,
      });
    try {
      const { path, followSymlinks } = request;
      const real = await resolveAllowedPath(path, roots, followSymlinks, 'path', guard);
      let info: StatInfo;
      try {
        info = await statPath(real, followSymlinks, guard);
      } catch (err) {
        throw fleetErrorAt(err, path);
      }
      const answer = encodeStatResponse(info, version);
      audit('ok', answer.length);
      return answer;
    } catch (err) {
      audit(FleetError.from(err).code, 0);
      const fe = FleetError.from(err);
      logger.debug({ rpc: 'Stat', code: fe.code, err: fe.message }, 'stat refused');
      throw err;
    }
  };
}

/** The Walk and Stat handlers over any carrier: one admission, one audit, one walker. */
export function createAgentHandlers(deps: AgentServiceDeps): AgentCallHandlers {
  const { config, logger, version } = deps;
  const observer = deps.observer ?? NOOP_OBSERVER;
  const features = deps.features ?? FILTER_FEATURES;
  const roots = deps.roots ?? resolveRoots(config.allow, config.pathRootfs);
  const ceilings = ceilingsOf(config);
  let seq = 0;
  // This service's workers and what they learnt of hung mounts: its own, passed down.
  const pool = deps.pool ?? new WalkPool();
  const guard: FsGuard = { timeoutMs: config.fsTimeoutMs, hung: pool.hung };
  const max = config.maxConcurrentWalks;
  const admission = createWalkAdmission(max, pool);

  async function walk(call: WalkCall): Promise<void> {
    call.sendHeaders(version, features);
    const log = logger.child({ rpc: 'Walk', call: ++seq, peer: call.peer });
    const started = Date.now();
    let running: RunningWalk<WireBatch> | undefined;
    let release: (() => void) | undefined;
    const progress: WalkProgress = { sent: 0, bytes: 0, seen: undefined };
    let outcome: WalkObservation['outcome'] = 'ok';
    let req: WalkRequest | undefined;
    try {
      const resolved = resolveWalkRequest(wireToRequestInput(call.request), ceilings);
      // The slot is taken before the path is resolved: the calls of a burst see each other's
      // slots, and an excess walk is refused at once, costing no file system call.
      release = admission.enter(resolved);
      req = await resolveFilterNames(await prepareWalk(knownFilterOnly(resolved, features), roots, guard));
      req = withinCallDeadline(req, call.deadline());
      log.info({ path: req.path, req: { ...req, path: undefined } }, 'walk start');
      const run = startWireWalk(req, {
        pool,
        allowedRoots: roots.real,
        fsTimeoutMs: config.fsTimeoutMs,
        maxStuckWorkers: max,
        onStuck: (mount, stuckCall) =>
          log.warn({ mount: mount.point, fsType: mount.fsType, at: stuckCall.path, until: mount.until }, 'mount hung'),
      });
      running = run;
      const offCancel = call.onCancel(() => run.cancel());
      if (call.cancelled) run.cancel();
      await streamBatches(call, run, progress);
      offCancel();
      if (call.cancelled) outcome = 'cancelled';
    } catch (err) {
      outcome = failWalk(call, err, log, req === undefined);
    } finally {
      release?.();
      const end = running ? await logWalkEnd(log, running, req, progress, outcome, started) : undefined;
      auditRpc(logger, {
        caller: call.caller,
        rpc: 'Walk',
        path: call.request?.path,
        rows: progress.sent,
        bytes: progress.bytes,
        ms: Date.now() - started,
        outcome,
      });
      observer.walkEnded({
        via: 'agent',
        outcome,
        seconds: (Date.now() - started) / 1000,
        counts: end?.counts ?? new WalkTally(),
      });
    }
  }

  const stat = createStatHandler(logger, roots, guard, version);

  return { walk, stat, version, features, active: admission.active };
}

/** The Agent service on a grpc-js server: the handlers of createAgentHandlers, carried by gRPC. */
export function addAgentService(
  server: grpc.Server,
  deps: AgentServiceDeps & { handlers?: AgentCallHandlers },
): AgentServiceHandle {
  const { logger } = deps;
  // Shared with the NATS responder when both carriers are on: one admission for both.
  const handlers = deps.handlers ?? createAgentHandlers(deps);
  // Walk batches arrive from the worker already encoded (@fleetls/proto's WalkResponseEncoder), and
  // the handlers encode the summary and Stat's answer: both methods write bytes as they are,
  // and the requests are decoded by hand, so no protobufjs is loaded to serve (issue 39).
  const served = agentService();
  /** Every response names the agent's version, even a refusal: `list_hosts check` reads it. */
  const versionMetadata = (): grpc.Metadata => {
    const md = new grpc.Metadata();
    md.set(AGENT_VERSION_METADATA, handlers.version);
    md.set(AGENT_FEATURES_METADATA, handlers.features.join(','));
    return md;
  };
  const grpcHandlers: grpc.UntypedServiceImplementation = {
    Walk: (call: grpc.ServerWritableStream<WireWalkRequestOut, Buffer>) => {
      handlers.walk(grpcWalkCall(call)).catch((err) => {
        logger.error({ err: String(err) }, 'walk handler crashed');
        try {
          call.emit('error', toStatus(err));
        } catch {
          // the call is gone
        }
      });
    },
    Stat: (call: grpc.ServerUnaryCall<WireStatRequestOut, Buffer>, callback: grpc.sendUnaryData<Buffer>) => {
      call.sendMetadata(versionMetadata());
      handlers.stat(call.request, callerOf(call)).then(
        (answer) => callback(null, answer),
        (err) => callback(toStatus(err) as grpc.ServiceError),
      );
    },
  };
  server.addService(served, grpcHandlers);
  return { active: handlers.active };
}

/** A grpc-js server stream as a WalkCall: its deadline, 'cancelled' event, write/drain. */
function grpcWalkCall(call: grpc.ServerWritableStream<WireWalkRequestOut, Buffer>): WalkCall {
  return {
    request: call.request,
    get caller() {
      return callerOf(call);
    },
    peer: call.getPeer(),
    get cancelled() {
      return call.cancelled;
    },
    deadline() {
      const d = call.getDeadline();
      const ms = d instanceof Date ? d.getTime() : Number(d);
      return Number.isFinite(ms) ? ms : undefined;
    },
    onCancel(fn) {
      call.once('cancelled', fn);
      return () => call.off('cancelled', fn);
    },
    sendHeaders(version, features) {
      const md = new grpc.Metadata();
      md.set(AGENT_VERSION_METADATA, version);
      md.set(AGENT_FEATURES_METADATA, features.join(','));
      call.sendMetadata(md);
    },
    write: (message) => call.write(message),
    drained() {
      if (call.cancelled) return Promise.resolve(false);
      return new Promise((resolve) => {
        const done = (ok: boolean) => () => {
          call.off('drain', onDrain);
          call.off('cancelled', onCancel);
          resolve(ok);
        };
        const onDrain = done(true);
        const onCancel = done(false);
        call.once('drain', onDrain);
        call.once('cancelled', onCancel);
      });
    },
    end: () => call.end(),
    fail: (status) => call.emit('error', status),
  };
}
