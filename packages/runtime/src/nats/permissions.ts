// What each NATS user of a fleet may do, as nats-server configuration text: an agent only its
// own subjects, inbox and registry key and replies; a gateway asks every agent, reads its own
// inbox and runs the JetStream API for the registry and the page store. deploy/nats/ shows
// the same blocks; `fleetls nats issue` writes them for every host it makes a key for.
import { agentSubjects, DEFAULT_SUBJECT_PREFIX, hostToken, REGISTRY_BUCKET } from './protocol.js';

/** The account every fleetls user is in (JetStream enabled for it). */
export const NATS_ACCOUNT = 'FLEETLS';
const PAGES_BUCKET = 'fleetls-pages';
/** The gateways' own subjects (the gateway's fleet/peers/protocol.ts: PEERS_PREFIX). */
const GATEWAY_SUBJECTS = 'fleetls.gateway.>';

const list = (xs: string[]) => `[ ${xs.map((x) => JSON.stringify(x)).join(', ')} ]`;

/**
 * An agent: it receives only its own requests and control messages and replies in its own
 * inbox prefix, publishes only replies to requests it received (allow_responses) and its own
 * registry key. A reply stream may carry at most 100,000 messages within 10 minutes.
 */
export function agentPermissions(host: string): string {
  const token = hostToken(host);
  return [
    'permissions: {',
    `  subscribe: { allow: ${list([`${agentSubjects(host).base}.>`, `_INBOX_${token}.>`])} }`,
    `  publish:   { allow: ${list([`$KV.${REGISTRY_BUCKET}.${token}`])} }`,
    '  allow_responses: { max: 100000, expires: "10m" }',
    '}',
  ].join('\n');
}

/**
 * A gateway: every agent's walk, stat and control subjects, its inbox, the buckets' JetStream
 * API, and the gateways' own subjects (GATEWAY_SUBJECTS: hellos and the shards of a call split
 * among them), which no agent may use.
 */
export function gatewayPermissions(): string {
  const agents = `${DEFAULT_SUBJECT_PREFIX}.*`;
  return [
    'permissions: {',
    `  publish:   { allow: ${list([`${agents}.walk`, `${agents}.stat`, `${agents}.ctl.*`, '$JS.API.>', `$O.${PAGES_BUCKET}.>`, `$KV.${REGISTRY_BUCKET}.>`, GATEWAY_SUBJECTS])} }`,
    `  subscribe: { allow: ${list(['_INBOX.>', `$KV.${REGISTRY_BUCKET}.>`, `$O.${PAGES_BUCKET}.>`, GATEWAY_SUBJECTS])} }`,
    '}',
  ].join('\n');
}

const indent = (text: string, n: number) =>
  text
    .split('\n')
    .map((l) => (l === '' ? l : ' '.repeat(n) + l))
    .join('\n');

/** The `accounts` block: the fleet's account, its agents and its gateways, each by public nkey. */
export function accountsConf(users: { agents: { host: string; nkey: string }[]; gateways: string[] }): string {
  const entries = [
    ...users.agents.map((a) => `# agent ${a.host}\n{ nkey: ${a.nkey},\n${indent(agentPermissions(a.host), 2)} }`),
    ...users.gateways.map((nkey) => `# gateway\n{ nkey: ${nkey},\n${indent(gatewayPermissions(), 2)} }`),
  ];
  return [
    'accounts {',
    `  ${NATS_ACCOUNT}: {`,
    '    jetstream: enabled',
    '    users: [',
    indent(entries.join('\n'), 6),
    '    ]',
    '  }',
    '}',
    '',
  ].join('\n');
}
