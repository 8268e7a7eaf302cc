// The fleetls.v1.Agent service: Walk (server-streaming, back-pressured, cancellable) and
// Stat. Wire ↔ domain goes through @fleetls/proto's codec only; errors leave as gRPC statuses.

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
import type {
  AgentHandlers,
  WireStatRequestOut,
  WireStatResponse,
  WireWalkRequestOut,
  WireWalkResponse,
} from '@fleetls/proto';
import {
  AGENT_FEATURES_METADATA,
  AGENT_VERSION_METADATA,
  loadContract,
  statToWire,
  summaryToWire,
  toStatus,
  wireToRequestInput,
} from '@fleetls/proto';
import { callerOf } from '@fleetls/runtime';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { auditRpc } from './audit.js';
import { DEFAULT_FS_GUARD, type FsGuard } from './bounded-call.js';
import type { AgentConfig } from './config.js';
import { hungMounts } from './hung-mounts.js';
import { knownFilterOnly, resolveFilterNames } from './id-names.js';
import { type AllowedRoots, resolveAllowedPath, resolveRoots } from './policy.js';
import { statPath } from './stat.js';
import { type RunningWalk, startWireWalk, stuckWorkers, type WalkOutcome, type WireBatch } from './walker.js';

/** Time kept back from the client's deadline so the summary (with its DEADLINE truncation) still arrives. */
const DEADLINE_MARGIN_MS = 100;

export function ceilingsOf(config: AgentConfig): typeof DEFAULT_CEILINGS {
  return { ...DEFAULT_CEILINGS, ...config.ceilings };
}

/** Shared by the service and the embedded backend: the request, validated and confined. */
export async function prepareWalk(
  req: WalkRequest,
  roots: AllowedRoots,
  guard: FsGuard = DEFAULT_FS_GUARD,
): Promise<WalkRequest> {
  const real = await resolveAllowedPath(req.path, roots, true, 'path', guard);
  return { ...req, path: real };
}

function waitDrainOrCancel(call: grpc.ServerWritableStream<unknown, unknown>): Promise<boolean> {
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
}

function settleWithin<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(undefined), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      () => {
        clearTimeout(t);
        resolve(undefined);
      },
    );
  });
}

export interface AgentServiceHandle {
  /** Walks in flight. */
  active(): number;
}

export function addAgentService(
  server: grpc.Server,
  deps: {
    config: AgentConfig;
    logger: Logger;
    version: string;
    roots?: AllowedRoots;
    observer?: Observer;
    /** The request features this build implements; every release has them all (tests narrow it). */
    features?: readonly FilterFeature[];
  },
): AgentServiceHandle {
  const { config, logger, version } = deps;
  const observer = deps.observer ?? NOOP_OBSERVER;
  const features = deps.features ?? FILTER_FEATURES;
  const roots = deps.roots ?? resolveRoots(config.allow, config.pathRootfs);
  const ceilings = ceilingsOf(config);
  let active = 0;
  let seq = 0;
  const guard: FsGuard = { timeoutMs: config.fsTimeoutMs, hung: hungMounts };
  const max = config.maxConcurrentWalks;
  /** Refuses a walk when every worker slot is taken, by walks or by workers stuck on hung mounts. */
  const admit = (): void => {
    const stuck = stuckWorkers();
    if (stuck >= max) {
      const mounts = hungMounts.active().map((h) => h.point);
      // Not `unavailable`: the gateway would report the host unreachable, and it answers.
      throw new FleetError(
        'resource_exhausted',
        `every walk worker (${stuck} of max_concurrent_walks ${max}) is stuck in a file system call that does not ` +
          `return${mounts.length > 0 ? ` (hung: ${mounts.join(', ')})` : ''}; walks are refused until one returns`,
      );
    }
    if (active + stuck >= max) {
      throw new FleetError(
        'resource_exhausted',
        `too many concurrent walks: ${active} running${stuck > 0 ? `, ${stuck} workers stuck on hung mounts` : ''}, ` +
          `max_concurrent_walks is ${max}`,
      );
    }
  };

  // Walk batches arrive from the worker already encoded (@fleetls/proto's WalkResponseEncoder), so the
  // registered Walk method serializes with the identity; the final summary message is
  // encoded here with the contract's own serializer.
  const definition = loadContract().proto.fleetls.v1.Agent.service;
  const encodeResponse = definition.Walk.responseSerialize as (v: WireWalkResponse) => Buffer;
  const encodeStat = definition.Stat.responseSerialize as (v: WireStatResponse) => Buffer;
  const served: grpc.ServiceDefinition = {
    ...definition,
    Walk: { ...definition.Walk, responseSerialize: (b: Buffer) => b },
  };

  /** Every response names the agent's version, even a refusal: `list_hosts check` reads it. */
  const versionMetadata = (): grpc.Metadata => {
    const md = new grpc.Metadata();
    md.set(AGENT_VERSION_METADATA, version);
    md.set(AGENT_FEATURES_METADATA, features.join(','));
    return md;
  };

  async function Walk(call: grpc.ServerWritableStream<WireWalkRequestOut, Buffer>): Promise<void> {
    call.sendMetadata(versionMetadata());
    const log = logger.child({ rpc: 'Walk', call: ++seq, peer: call.getPeer() });
    const started = Date.now();
    let running: RunningWalk<WireBatch> | undefined;
    let acquired = false;
    let sent = 0;
    let bytes = 0;
    let seen: number | undefined;
    let outcome: WalkObservation['outcome'] = 'ok';
    let req: WalkRequest | undefined;
    try {
      const resolved = resolveWalkRequest(wireToRequestInput(call.request), ceilings);
      // Refused before the path is even resolved: an excess walk costs no file system call.
      admit();
      req = await resolveFilterNames(await prepareWalk(knownFilterOnly(resolved, features), roots, guard));
      const callDeadline = call.getDeadline();
      const deadlineMs = callDeadline instanceof Date ? callDeadline.getTime() : Number(callDeadline);
      if (Number.isFinite(deadlineMs)) {
        const left = Math.max(1, deadlineMs - Date.now() - DEADLINE_MARGIN_MS);
        if (left < req.deadlineMs) req = { ...req, deadlineMs: left };
      }
      admit();
      active++;
      acquired = true;
      log.info({ path: req.path, req: { ...req, path: undefined } }, 'walk start');
      const walk = startWireWalk(req, {
        allowedRoots: roots.real,
        fsTimeoutMs: config.fsTimeoutMs,
        maxStuckWorkers: max,
        onStuck: (mount, stuckCall) =>
          log.warn({ mount: mount.point, fsType: mount.fsType, at: stuckCall.path, until: mount.until }, 'mount hung'),
      });
      running = walk;
      const onCancelled = () => walk.cancel();
      call.once('cancelled', onCancelled);
      if (call.cancelled) walk.cancel();
      const it = walk.batches;
      for (;;) {
        const r = await it.next();
        if (r.done) {
          seen = r.value.entriesSeen;
          if (!call.cancelled) {
            call.write(encodeResponse({ rows: [], summary: summaryToWire(r.value) }));
            call.end();
          }
          break;
        }
        if (call.cancelled) {
          walk.cancel();
          break;
        }
        sent += r.value.entries;
        bytes += r.value.bytes.length;
        if (!call.write(r.value.bytes) && !(await waitDrainOrCancel(call))) {
          walk.cancel();
          break;
        }
      }
      call.off('cancelled', onCancelled);
      if (call.cancelled) outcome = 'cancelled';
    } catch (err) {
      const fe = FleetError.from(err);
      if (call.cancelled || fe.code === 'cancelled') {
        outcome = 'cancelled';
      } else {
        outcome = fe.code;
        if (!acquired) log.info({ code: fe.code, err: fe.message, path: call.request?.path }, 'walk refused');
        else log.warn({ code: fe.code, err: fe.message }, 'walk failed');
        call.emit('error', toStatus(fe));
      }
    } finally {
      if (acquired) active--;
      let end: WalkOutcome | undefined;
      if (running) {
        end = await settleWithin(running.finished, 5000);
        log.info(
          {
            path: req?.path,
            entriesSeen: seen ?? end?.seen,
            entriesSent: sent,
            cancelled: outcome === 'cancelled',
            outcome,
            route: end?.route,
            fallback: end?.fallback,
            elapsedMs: Date.now() - started,
          },
          'walk end',
        );
      }
      auditRpc(logger, {
        caller: callerOf(call),
        rpc: 'Walk',
        path: call.request?.path,
        rows: sent,
        bytes,
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

  async function Stat(
    call: grpc.ServerUnaryCall<WireStatRequestOut, WireStatResponse>,
    callback: grpc.sendUnaryData<WireStatResponse>,
  ): Promise<void> {
    call.sendMetadata(versionMetadata());
    const started = Date.now();
    const audit = (outcome: string, bytes: number) =>
      auditRpc(logger, {
        caller: callerOf(call),
        rpc: 'Stat',
        path: call.request?.path,
        rows: outcome === 'ok' ? 1 : 0,
        bytes,
        ms: Date.now() - started,
        outcome,
      });
    try {
      const { path, followSymlinks } = call.request;
      const real = await resolveAllowedPath(path, roots, followSymlinks, 'path', guard);
      let info: StatInfo;
      try {
        info = await statPath(real, followSymlinks, guard);
      } catch (err) {
        throw fleetErrorAt(err, path);
      }
      const answer = statToWire(info, version);
      audit('ok', encodeStat(answer).length);
      callback(null, answer);
    } catch (err) {
      audit(FleetError.from(err).code, 0);
      const status = toStatus(err);
      logger.debug({ rpc: 'Stat', code: status.code, err: status.details }, 'stat refused');
      callback(status as grpc.ServiceError);
    }
  }

  const handlers: AgentHandlers = {
    Walk: (call) => {
      Walk(call as unknown as grpc.ServerWritableStream<WireWalkRequestOut, Buffer>).catch((err) => {
        logger.error({ err: String(err) }, 'walk handler crashed');
        try {
          call.emit('error', toStatus(err));
        } catch {
          // the call is gone
        }
      });
    },
    Stat: (call, callback) => {
      void Stat(call, callback);
    },
  };
  server.addService(served, handlers as unknown as grpc.UntypedServiceImplementation);
  return { active: () => active };
}
