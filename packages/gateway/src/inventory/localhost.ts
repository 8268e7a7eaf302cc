// `localhost` in an inventory: this machine, listed by the agent embedded in the gateway,
// under roots the inventory gives it. It exists only where the inventory names it (an
// inventory that leaves it out has no such host), so an MCP caller can never reach the
// gateway's own files (its keys, its inventory) by a name nobody configured.
import { isAbsolute } from 'node:path';

/** `localhost: { embedded: { allow: [...] } }` (fleetls YAML), `fleetls_embedded_allow` (Ansible). */
export interface EmbeddedSettings {
  /** Absolute directories the embedded agent may list, as the agent's `allow`. */
  allow: string[];
}

export const EMBEDDED_KEYS = ['allow'] as const;

export const EMBEDDED_EXAMPLE = 'localhost: { embedded: { allow: [/var/log] } }';

/** The problem with one root, or undefined when it is an absolute path. */
function rootProblem(v: unknown): string | undefined {
  if (typeof v !== 'string' || v === '') return `expected an absolute directory, got ${JSON.stringify(v ?? null)}`;
  if (!isAbsolute(v)) return `expected an absolute directory, got ${JSON.stringify(v)}`;
  for (let i = 0; i < v.length; i++) {
    if (v.charCodeAt(i) < 0x20) return `a root must not contain control characters, got ${JSON.stringify(v)}`;
  }
  return undefined;
}

/**
 * The roots of an embedded localhost: a non-empty list of absolute directories (Ansible may
 * give them comma-separated). Returns the roots, or the problems, each with its place
 * relative to `at`.
 */
export function parseEmbeddedAllow(
  value: unknown,
  at: string,
): { allow: string[]; problems: [] } | { allow?: undefined; problems: [string, string][] } {
  const list = typeof value === 'string' ? value.split(',').map((s) => s.trim()) : value;
  if (!Array.isArray(list) || list.length === 0) {
    return { problems: [[at, 'expected a non-empty list of absolute directories, as [/var/log]']] };
  }
  const problems: [string, string][] = [];
  list.forEach((r, i) => {
    const why = rootProblem(r);
    if (why) problems.push([`${at}[${i}]`, why]);
  });
  return problems.length > 0 ? { problems } : { allow: list as string[], problems: [] };
}
