// Two principals over one fleet, for the grants tests: three real agents on loopback ports
// allowed the same temp tree (web-1 and web-2 in @web, db-1 in @db), a grants file where
// team-a may call list_files and stat on @web under <tmp>/log (a /var/log of its own), team-b
// everything, team-c little and slowly; and the inventory naming them.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type Code, ConnectError } from '@connectrpc/connect';
import { makeTree } from '@fleetls/testkit';
import { type AgentProcess, startAgent } from './agent-process.js';

export const TOKEN_A = 'grants-team-a-token-0123456789';
export const TOKEN_B = 'grants-team-b-token-0123456789';
export const TOKEN_C = 'grants-team-c-token-0123456789';

export const sha256 = (t: string) => `sha256:${createHash('sha256').update(t).digest('hex')}`;

/** One principal of a grants file: plain tokens (written hashed) or an OAuth claim, and its grant. */
export interface PrincipalSpec {
  tokens?: string[];
  oauth?: Record<string, string>;
  tools: string[];
  hosts: string[];
  paths: string[];
  callsPerMinute?: number;
}

/** A grants file's text for these principals, in their order (flow sequences: JSON is YAML). */
export function grantsYaml(principals: Record<string, PrincipalSpec>): string {
  const lines = ['principals:'];
  for (const [name, p] of Object.entries(principals)) {
    lines.push(`  ${name}:`);
    if (p.tokens) lines.push(`    tokens: ${JSON.stringify(p.tokens.map(sha256))}`);
    if (p.oauth) lines.push(`    oauth: ${JSON.stringify(p.oauth)}`);
    lines.push(`    tools: ${JSON.stringify(p.tools)}`, `    hosts: ${JSON.stringify(p.hosts)}`);
    lines.push(`    paths: ${JSON.stringify(p.paths)}`);
    if (p.callsPerMinute !== undefined) lines.push(`    calls_per_minute: ${p.callsPerMinute}`);
  }
  return `${lines.join('\n')}\n`;
}

/** The Connect code a Fleet API call ended with, or 'ok'. */
export async function rpcCode(call: Promise<unknown>): Promise<Code | 'ok'> {
  try {
    await call;
    return 'ok';
  } catch (err) {
    return ConnectError.from(err).code;
  }
}

export interface GrantsFleet {
  root: string;
  /** <root>/log: team-a's one root. */
  log: string;
  /** <root>/etc: outside it. */
  etc: string;
  inventory: string;
  /** The grants file of team-a, team-b and team-c. */
  grants: string;
  agents: AgentProcess[];
  /** Writes a grants file of these principals, `local` (team-a's grant) included when asked. */
  writeGrants(file: string, opts?: { local?: boolean; extraTokenA?: string }): void;
  close(): Promise<void>;
}

export async function startGrantsFleet(): Promise<GrantsFleet> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-grants-')));
  makeTree(root, [
    ['log/a.log', { data: 'a'.repeat(300) }],
    ['log/b.log', { data: 'b'.repeat(20) }],
    ['log/c.log', { data: 'c'.repeat(4000) }],
    ['log/nginx/access.log', { data: 'x'.repeat(7) }],
    ['etc/secret.conf', { data: 's'.repeat(50) }],
  ]);
  const log = path.join(root, 'log');
  const etc = path.join(root, 'etc');
  const agents = await Promise.all([0, 1, 2].map(() => startAgent({ allow: [root] })));
  const inventory = path.join(root, 'fleetls.yaml');
  fs.writeFileSync(
    inventory,
    [
      'hosts:',
      `  web-1: { agent: "${agents[0].address}" }`,
      `  web-2: { agent: "${agents[1].address}" }`,
      `  db-1: { agent: "${agents[2].address}" }`,
      'groups: { web: [web-1, web-2], db: [db-1] }',
      'agent_tls: insecure',
      '',
    ].join('\n'),
  );
  const teamA = { tools: ['list_files', 'stat'], hosts: ['@web'], paths: [log] };
  const writeGrants = (file: string, opts: { local?: boolean; extraTokenA?: string } = {}) => {
    const text = grantsYaml({
      'team-a': { tokens: [TOKEN_A, ...(opts.extraTokenA ? [opts.extraTokenA] : [])], ...teamA },
      'team-b': { tokens: [TOKEN_B], tools: ['*'], hosts: ['all'], paths: ['/'] },
      'team-c': { tokens: [TOKEN_C], tools: ['list_hosts'], hosts: ['all'], paths: ['/'], callsPerMinute: 3 },
      ...(opts.local ? { local: teamA } : {}),
    });
    fs.writeFileSync(`${file}.tmp`, text);
    // Replaced whole, as a config manager does.
    fs.renameSync(`${file}.tmp`, file);
  };
  const grants = path.join(root, 'grants.yaml');
  writeGrants(grants);
  return {
    root,
    log,
    etc,
    inventory,
    grants,
    agents,
    writeGrants,
    close: async () => {
      await Promise.all(agents.map((a) => a.stop()));
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}
