// The grants file (`--grants FILE`, or `grants:` in the inventory's settings): who may call
// what. Parsed and checked whole with zod; every problem names its key (`principals.web-team.
// tokens[0]: …`), so an operator fixes a file in one pass. Tokens are kept only as SHA-256
// hashes: a plain token in the file is refused, so the file can be read by more people (and
// backed up, and diffed) than a secret could.
import { posix } from 'node:path';
import { invalidArgument } from '@fleetls/core';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

/** Which claim of an OAuth access token names a principal, and the value it must hold. */
export type OAuthMatch = { claim: 'scope' | 'sub' | 'client_id' | 'groups'; value: string };

export interface PrincipalSpec {
  name: string;
  /** SHA-256 digests of the bearer tokens (32 bytes each). */
  tokens: Buffer[];
  oauth?: OAuthMatch;
  tools: string[];
  hosts: string[];
  paths: string[];
  /** Tool calls (and HTTP requests) per minute this principal may make. */
  callsPerMinute: number;
}

export interface GrantsConfig {
  /** In file order: a caller is the first principal that matches. */
  principals: PrincipalSpec[];
}

/** The principal stdio and the CLI run as. */
export const LOCAL_PRINCIPAL = 'local';
export const DEFAULT_CALLS_PER_MINUTE = 600;
const OAUTH_CLAIMS = ['scope', 'sub', 'client_id', 'groups'] as const;
const PRINCIPAL_KEYS = ['tokens', 'oauth', 'tools', 'hosts', 'paths', 'calls_per_minute'];

const tokenHash = z.string({ error: 'expected a string "sha256:<64 hex digits>"' }).regex(/^sha256:[0-9a-fA-F]{64}$/, {
  error:
    'expected "sha256:" and the 64 hex digits of the token\'s SHA-256 (plain tokens are refused here: hash one with `printf %s "$TOKEN" | sha256sum`)',
});

const claimValue = z.string({ error: 'expected the claim value, a string' }).min(1, { error: 'must not be empty' });

const oauth = z
  .strictObject(
    {
      scope: claimValue.optional(),
      sub: claimValue.optional(),
      client_id: claimValue.optional(),
      groups: claimValue.optional(),
    },
    { error: (iss) => (iss.code === 'unrecognized_keys' ? unknownKeys(iss.keys, OAUTH_CLAIMS) : undefined) },
  )
  .refine((o) => Object.keys(o).length === 1, {
    error: `expected exactly one claim: ${OAUTH_CLAIMS.join(', ')} (as { scope: "fleetls.audit" })`,
  });

const list = (what: string, item: z.ZodType<string>) =>
  z.array(item, { error: `expected a list of ${what}` }).min(1, { error: `expected at least one of ${what}` });

const toolPattern = z
  .string({ error: 'expected a tool name or glob' })
  .regex(/^!?[A-Za-z0-9_*?[\]-]+$/, { error: 'expected a tool name or glob (`list_files`, `list_*`, `*`, `!stat`)' });

const selector = z
  .string({ error: 'expected a host selector' })
  .min(1, { error: 'expected a host selector (a name, web-*, @group, label:key=value, all)' })
  .max(1024, { error: 'a selector is at most 1024 characters' });

const root = z
  .string({ error: 'expected an absolute path' })
  .refine((p) => p.startsWith('/'), { error: 'expected an absolute path starting with /' })
  .refine((p) => !p.split('/').includes('..'), { error: 'a root has no `..` component' });

const principal = z.strictObject(
  {
    tokens: z.array(tokenHash, { error: 'expected a list of "sha256:<hex>" token hashes' }).optional(),
    oauth: oauth.optional(),
    tools: list('tool names or globs', toolPattern),
    hosts: list('host selectors', selector),
    paths: list('absolute paths', root),
    calls_per_minute: z
      .int({ error: 'expected a whole number of calls' })
      .min(1, { error: 'at least 1' })
      .max(1_000_000, { error: 'at most 1000000' })
      .optional(),
  },
  { error: (iss) => (iss.code === 'unrecognized_keys' ? unknownKeys(iss.keys, PRINCIPAL_KEYS) : undefined) },
);

const grantsFile = z.strictObject(
  {
    principals: z.record(
      z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, {
        error: 'a principal name is 1-64 letters, digits, `.`, `_` or `-`',
      }),
      principal,
      { error: 'expected a map of principal names to their grants' },
    ),
  },
  { error: (iss) => (iss.code === 'unrecognized_keys' ? unknownKeys(iss.keys, ['principals']) : undefined) },
);

function unknownKeys(keys: readonly string[], known: readonly string[]): string {
  return `unknown key${keys.length > 1 ? 's' : ''} ${keys.map((k) => `'${k}'`).join(', ')}; known: ${known.join(', ')}`;
}

function keyPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const k of path) out += typeof k === 'number' ? `[${k}]` : out === '' ? String(k) : `.${String(k)}`;
  return out === '' ? '(top level)' : out;
}

/** A grants document (already parsed from YAML, or the inventory's `grants:` value). */
export function grantsOf(doc: unknown, source: string): GrantsConfig {
  const r = grantsFile.safeParse(doc);
  if (!r.success) {
    throw invalidArgument(`${source}: ${r.error.issues.map((i) => `${keyPath(i.path)}: ${i.message}`).join('; ')}`);
  }
  const problems: string[] = [];
  const owner = new Map<string, string>();
  const principals: PrincipalSpec[] = [];
  for (const [name, p] of Object.entries(r.data.principals)) {
    const tokens = (p.tokens ?? []).map((t) => t.slice('sha256:'.length).toLowerCase());
    tokens.forEach((t, i) => {
      const other = owner.get(t);
      if (other !== undefined) problems.push(`principals.${name}.tokens[${i}]: the same token as ${other}'s`);
      owner.set(t, name);
    });
    if (tokens.length === 0 && p.oauth === undefined && name !== LOCAL_PRINCIPAL) {
      problems.push(
        `principals.${name}: needs tokens or oauth (only '${LOCAL_PRINCIPAL}', the stdio and CLI caller, has neither)`,
      );
    }
    const claim = p.oauth ? (Object.keys(p.oauth)[0] as OAuthMatch['claim']) : undefined;
    principals.push({
      name,
      tokens: tokens.map((t) => Buffer.from(t, 'hex')),
      ...(claim && p.oauth ? { oauth: { claim, value: p.oauth[claim] as string } } : {}),
      tools: p.tools,
      hosts: p.hosts,
      // `/var/log/` and `/var/log` are one root.
      paths: p.paths.map((x) => posix.normalize(x).replace(/(.)\/$/, '$1')),
      callsPerMinute: p.calls_per_minute ?? DEFAULT_CALLS_PER_MINUTE,
    });
  }
  if (problems.length > 0) throw invalidArgument(`${source}: ${problems.join('; ')}`);
  return { principals };
}

/** A grants file's text (YAML). */
export function parseGrants(text: string, source: string): GrantsConfig {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw invalidArgument(`${source}: not YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  return grantsOf(doc, source);
}
