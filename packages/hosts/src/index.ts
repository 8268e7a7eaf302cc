// @fleetls/hosts: every way the gateway reaches a host. The root holds TRANSPORTS, one entry
// per transport, and what every fleet needs (the fallback between an agent and SSH); each
// transport is its own entry point (./agent, ./agent/nats, ./over-ssh, ./ssh), imported by its
// entry's `load`, so a process loads ssh2 or gRPC only when its inventory names a host that
// needs them. A new transport is one folder and one entry here (README.md says which files).
import { createFallbackBackend } from './fallback.js';
import { defineTransport, type HostSpec, sshAddress, type Transport } from './transport.js';

export type { FallbackOptions, WithVia } from './fallback.js';
export { AGENT_RETRY_MS, createFallbackBackend, viaOf } from './fallback.js';
export type { SshHostConfig } from './ssh/types.js';
export type { HostKey, HostSpec, Transport, TransportContext, TransportFactory } from './transport.js';
export { defineTransport, sshAddress } from './transport.js';
export type { WalkGuardOptions, WalkTap } from './walk-guard.js';
export { guardBackend, guardWalk, HostOverrun, HostStalled, RowAllowance, StallWatch } from './walk-guard.js';

/**
 * Every transport a host of the inventory can be reached by, in the order its keys are
 * checked: a host with an agent socket and SSH is `agent+ssh`, one with an agent address is
 * `agent` (falling back to SSH when it has SSH too). `agent+nats` is not here: its hosts are
 * not the inventory's but the NATS registry's, which the gateway's fleet opens (./nats).
 */
export const TRANSPORTS: readonly Transport<unknown>[] = [
  defineTransport({
    via: 'agent+ssh',
    keys: ['agentSocket', 'ssh'],
    address: (spec) => `${sshAddress(spec.ssh!)}:${spec.agentSocket}`,
    fallsBack: () => true,
    async load() {
      const { createAgentSshPair } = await import('./agent/over-ssh.js');
      return (spec, ctx) =>
        createAgentSshPair(spec.ssh!, spec.agentSocket!, {
          tokenFile: ctx.agentTokenFile,
          connectTimeoutMs: ctx.connectTimeoutMs,
          logger: ctx.logger,
          observer: ctx.observer,
        });
    },
    // The agent through the host's SSH, and `find` over the same connection when it fails.
    create: (pair, _spec, ctx) =>
      createFallbackBackend(pair.agent, () => pair.find, ctx.logger, Date.now, { primary: 'agent+ssh', note: true }),
  }),
  defineTransport({
    via: 'agent',
    keys: ['agent'],
    address: (spec) => spec.agent!,
    fallsBack: (spec) => spec.ssh !== undefined,
    async load() {
      const { createAgentBackend } = await import('./agent/index.js');
      return (spec, ctx) =>
        createAgentBackend(spec.agent!, {
          tls: ctx.agentTls ?? 'insecure',
          tokenFile: ctx.agentTokenFile,
          connectTimeoutMs: ctx.connectTimeoutMs,
          logger: ctx.logger,
        });
    },
    create: (agent, spec, ctx) =>
      spec.ssh ? createFallbackBackend(agent, () => ctx.backend('ssh', spec), ctx.logger) : agent,
  }),
  defineTransport({
    via: 'ssh',
    keys: ['ssh'],
    address: (spec) => sshAddress(spec.ssh!),
    fallsBack: () => false,
    async load() {
      const { createSshBackend } = await import('./ssh/index.js');
      return (spec, ctx) =>
        createSshBackend(
          { ...spec.ssh!, connectTimeoutMs: ctx.connectTimeoutMs },
          { logger: ctx.logger, connectTimeoutMs: ctx.connectTimeoutMs, observer: ctx.observer },
        );
    },
    create: (ssh) => ssh,
  }),
  defineTransport({
    via: 'embedded',
    keys: ['embedded'],
    address: () => 'embedded',
    fallsBack: () => false,
    async load() {
      const { createLocalBackend } = await import('@fleetls/agent/embedded');
      return (spec) => createLocalBackend({ allowedRoots: spec.embedded?.allow });
    },
    create: (local) => local,
  }),
];

/** The transport a host's keys choose: the first of TRANSPORTS whose keys it all sets. */
export function transportOf(spec: HostSpec): Transport<unknown> | undefined {
  return TRANSPORTS.find((t) => t.keys.every((key) => spec[key] !== undefined));
}
