// The Agent service over NATS: subjects, headers and framing, shared by the agent's responder
// and the gateway's NATS backend. The messages are the gRPC contract's own (WalkRequest,
// WalkResponse, StatRequest, StatResponse); only the carrier differs:
//
//   gateway ── fleetls.agent.<host>.walk (reply: its inbox) ──▶ agent
//   agent   ── seq 0: headers (version, features), then seq 1…n: slices of the response
//               stream framed as gRPC frames (5-byte prefix), the last one marked End ──▶ inbox
//   gateway ── fleetls.agent.<host>.ctl.<call>: Ack <seq> / Cancel ──▶ agent
//
// A reply stream never has more than `window` unacknowledged slices: a slow gateway holds
// the agent to window × CHUNK_BYTES. Subjects name only the agent's host, so the server's
// permissions can confine each host's credentials to its own subjects (deploy/nats/).

/** One message's payload at most: well under nats-server's default max_payload (1 MiB). */
export const CHUNK_BYTES = 60 * 1024;
/** Unacknowledged slices an agent may have in flight per walk. */
export const DEFAULT_WINDOW = 8;
/** An agent sends a keepalive this often while a walk has nothing to send yet. */
export const KEEPALIVE_MS = 2000;
/** The JetStream KV bucket agents register in. */
export const REGISTRY_BUCKET = 'fleetls-hosts';
export const DEFAULT_HEARTBEAT_MS = 10_000;
/**
 * The heartbeats a gateway believes: a registration announcing a longer (or shorter) one is
 * held within these, so a host cannot stay "up" for days after it stopped by announcing
 * `heartbeatMs: 2147483647`. An inventory may lower the upper bound (`nats.max_heartbeat_ms`).
 */
export const MIN_HEARTBEAT_MS = 100;
export const MAX_HEARTBEAT_MS = 60_000;
/** Registrations are forgotten (the bucket's max age) a day after their host's last heartbeat. */
export const REGISTRY_FORGET_MS = 24 * 3600_000;
/**
 * A registration older than this many heartbeats is a host that stopped: unreachable. Two: a
 * killed agent is unreachable within two of its heartbeats on every gateway (one missed beat
 * is tolerated, a whole interval late).
 */
export const MISSED_HEARTBEATS = 2;

export const HDR = {
  call: 'Fleetls-Call',
  timeoutMs: 'Fleetls-Timeout-Ms',
  window: 'Fleetls-Window',
  seq: 'Fleetls-Seq',
  end: 'Fleetls-End',
  keepalive: 'Fleetls-Keepalive',
  status: 'Fleetls-Status',
  details: 'Fleetls-Details',
  version: 'Fleetls-Agent-Version',
  features: 'Fleetls-Agent-Features',
  ack: 'Fleetls-Ack',
  cancel: 'Fleetls-Cancel',
  caller: 'Fleetls-Caller',
} as const;

/** A name made only of what a token keeps as it is. */
const PLAIN_TOKEN = /^[A-Za-z0-9_-]+$/;

/**
 * A host name as one subject token and one KV key: letters, digits, '-' and '_' stay, every
 * other byte is '=' and two hex digits ('web-1.example.com' → 'web-1=2Eexample=2Ecom').
 * '.' separates subject tokens, and '*', '>' and spaces are not allowed in them.
 */
export function hostToken(name: string): string {
  if (name === '') throw new RangeError('host name: empty');
  // Most names are their own token: a fan-out makes every host's subjects per call.
  if (PLAIN_TOKEN.test(name)) return name;
  let out = '';
  for (const b of Buffer.from(name, 'utf8')) {
    const c = String.fromCharCode(b);
    out += /[A-Za-z0-9_-]/.test(c) ? c : `=${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

export function hostFromToken(token: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < token.length; i++) {
    if (token[i] === '=') {
      bytes.push(Number.parseInt(token.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(token.charCodeAt(i));
  }
  return Buffer.from(bytes).toString('utf8');
}

export const DEFAULT_SUBJECT_PREFIX = 'fleetls.agent';

export function agentSubjects(name: string, prefix = DEFAULT_SUBJECT_PREFIX) {
  const base = `${prefix}.${hostToken(name)}`;
  return {
    base,
    walk: `${base}.walk`,
    stat: `${base}.stat`,
    ctl: (call: string) => `${base}.ctl.${call}`,
    ctlAll: `${base}.ctl.*`,
  };
}

/** What an agent writes in the registry, refreshed every heartbeat. */
export interface Registration {
  name: string;
  labels: Record<string, string>;
  groups: string[];
  version: string;
  /** The request features it applies (as the gRPC metadata names them), plus walk and stat. */
  capabilities: string[];
  heartbeatMs: number;
  startedAt: string;
}
