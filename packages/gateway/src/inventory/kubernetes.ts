// The agents of a Kubernetes DaemonSet, found through their headless Service's DNS: one
// host per address the name resolves to, named by the address's reverse (PTR) name's
// first label (the node's name where the cluster's DNS answers with it), else by the
// address. Pure apart from the resolver, which tests replace.
import { promises as dnsPromises } from 'node:dns';
import { isIPv6 } from 'node:net';
import { FleetError } from '@fleetls/core';
import { HOST_NAME_RE } from './hosts.js';
import type { InventoryHost, KubernetesAgents } from './types.js';

export type { KubernetesAgents } from './types.js';

export interface Resolver {
  resolve4(name: string): Promise<string[]>;
  resolve6(name: string): Promise<string[]>;
  reverse(address: string): Promise<string[]>;
}

const NO_RECORDS = new Set(['ENODATA', 'ENOTFOUND']);

async function orNone(p: Promise<string[]>): Promise<string[]> {
  try {
    return await p;
  } catch (err) {
    if (NO_RECORDS.has((err as NodeJS.ErrnoException).code ?? '')) return [];
    throw err;
  }
}

/** A host name for an address: its PTR name's first label, else the address with - for . and :. */
export function agentHostName(address: string, ptrNames: string[]): string {
  const label = ptrNames.map((n) => n.split('.')[0] ?? '').find((l) => l !== '' && HOST_NAME_RE.test(l));
  return label ?? address.replace(/[.:]/g, '-');
}

/**
 * One inventory host per agent address, sorted by name; two addresses with the same name
 * keep it apart with the address (a stale PTR record must not merge two agents).
 */
export function agentHosts(found: { address: string; ptr: string[] }[], port: number): InventoryHost[] {
  const named = found.map((f) => ({ ...f, name: agentHostName(f.address, f.ptr) }));
  const counts = new Map<string, number>();
  for (const n of named) counts.set(n.name, (counts.get(n.name) ?? 0) + 1);
  return named
    .map((n) => ({
      name: (counts.get(n.name) ?? 0) > 1 ? `${n.name}-${n.address.replace(/[.:]/g, '-')}` : n.name,
      agent: isIPv6(n.address) ? `[${n.address}]:${port}` : `${n.address}:${port}`,
      labels: { discovered: 'kubernetes' },
      groups: [],
    }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Resolves the Service's addresses (A and AAAA) and their PTR names. */
export async function discoverKubernetesAgents(
  spec: KubernetesAgents,
  resolver: Resolver = dnsPromises,
): Promise<InventoryHost[]> {
  let addresses: string[];
  try {
    addresses = [
      ...(await orNone(resolver.resolve4(spec.service))),
      ...(await orNone(resolver.resolve6(spec.service))),
    ];
  } catch (err) {
    throw new FleetError(
      'unavailable',
      `kubernetes.service ${spec.service}: DNS lookup failed (${(err as Error).message})`,
      {
        cause: err,
      },
    );
  }
  const found = await Promise.all(
    [...new Set(addresses)].map(async (address) => ({
      address,
      ptr: await orNone(resolver.reverse(address)).catch(() => []),
    })),
  );
  return agentHosts(found, spec.port);
}

/** How often a gateway re-lists the DaemonSet's agents (pods come, go and change address). */
export const KUBERNETES_REFRESH_MS = 30_000;

/**
 * The DaemonSet's agents, re-listed every `intervalMs` once started. A failed re-listing
 * keeps the last good list (a DNS hiccup must not empty the fleet) and is reported to
 * `onError`; each good one replaces the list, so `hosts()` changes identity only then.
 */
export class KubernetesDiscovery {
  private listed: InventoryHost[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly spec: KubernetesAgents,
    private readonly resolver: Resolver = dnsPromises,
  ) {}

  /** The latest listing. */
  hosts(): InventoryHost[] {
    return this.listed;
  }

  async refresh(): Promise<InventoryHost[]> {
    this.listed = await discoverKubernetesAgents(this.spec, this.resolver);
    return this.listed;
  }

  /** Re-lists every `intervalMs`; the timer never keeps the process alive. */
  start(intervalMs: number, onError: (err: unknown) => void): void {
    this.timer ??= setInterval(() => this.refresh().catch(onError), intervalMs);
    this.timer.unref();
  }

  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
