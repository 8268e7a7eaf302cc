// The grants a serving gateway holds: read from its file at start (a bad file refuses the
// start), read again on SIGHUP and whenever the file changes (tokens rotate without a
// restart); a file that no longer parses keeps the last good grants and the log says why.
// Callers are found here: by bearer token (its SHA-256 compared with every principal's in
// constant time), by OAuth claims, or as `local` (stdio, the CLI).
import { createHash, timingSafeEqual } from 'node:crypto';
import { type FSWatcher, readFileSync, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import { invalidArgument } from '@fleetls/core';
import type { Logger } from 'pino';
import type { CallerAccess } from './access.js';
import { type GrantsConfig, LOCAL_PRINCIPAL, type PrincipalSpec, parseGrants } from './file.js';
import { RateLimiter } from './rate.js';

/** The claims of a verified access token that principals are matched by. */
export type TokenClaims = Record<string, unknown>;

const ZERO = Buffer.alloc(32);

export class Grants {
  private config: GrantsConfig;
  private readonly limiters = new Map<string, RateLimiter>();
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;

  private constructor(
    config: GrantsConfig,
    private readonly file: string | undefined,
    private readonly logger: Logger,
  ) {
    this.config = config;
  }

  /** Reads `file`; invalid_argument naming the file and the key on any problem. */
  static fromFile(file: string, logger: Logger): Grants {
    return new Grants(readGrants(file), file, logger);
  }

  /** Grants given whole (tests, the inventory's inline `grants:`); never reloaded. */
  static of(config: GrantsConfig, logger: Logger): Grants {
    return new Grants(config, undefined, logger);
  }

  get principals(): readonly PrincipalSpec[] {
    return this.config.principals;
  }

  /** Reads the file again; a bad file keeps the grants held and logs why. True when replaced. */
  reload(why: string): boolean {
    if (this.file === undefined) return false;
    try {
      this.config = readGrants(this.file);
    } catch (err) {
      this.logger.error(
        { grants: this.file, reason: why, err: (err as Error).message },
        'grants file not reloaded: keeping the last good grants',
      );
      return false;
    }
    for (const p of this.config.principals) this.limiters.get(p.name)?.setRate(p.callsPerMinute);
    this.logger.info(
      { grants: this.file, reason: why, principals: this.config.principals.map((p) => p.name) },
      'grants reloaded',
    );
    return true;
  }

  /**
   * Reloads when the file changes. The directory is watched, not the file: an editor or a
   * config manager replaces a file by renaming another over it, which a watch on the old
   * inode never sees. Changes are gathered for a moment (a write comes as several events).
   */
  watch(): void {
    if (this.file === undefined || this.watcher) return;
    const name = basename(this.file);
    this.watcher = watch(dirname(this.file), (_event, changed) => {
      if (changed !== null && changed !== name) return;
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.reload('file changed'), 100);
    });
    this.watcher.on('error', (err) => this.logger.warn({ grants: this.file, err }, 'grants file no longer watched'));
  }

  close(): void {
    clearTimeout(this.timer);
    this.watcher?.close();
    this.watcher = undefined;
  }

  /**
   * The principal an `Authorization: Bearer …` header names, or undefined. Every token of
   * every principal is compared, in constant time, whichever matches: neither a token nor
   * which principal holds it shows in the time taken.
   */
  byBearer(header: string | undefined): CallerAccess | undefined {
    const m = /^Bearer\s+(.+)$/i.exec(header ?? '');
    // Nothing hashes to all zeros: a missing token compares like any other and matches none.
    const got = m ? createHash('sha256').update(m[1].trim()).digest() : ZERO;
    let found: PrincipalSpec | undefined;
    for (const p of this.config.principals) {
      for (const t of p.tokens) if (timingSafeEqual(got, t) && found === undefined) found = p;
    }
    return found && this.access(found);
  }

  /** The first principal whose `oauth` claim a verified token carries. */
  byClaims(claims: TokenClaims): CallerAccess | undefined {
    const p = this.config.principals.find(
      (s) => s.oauth !== undefined && claimHolds(claims, s.oauth.claim, s.oauth.value),
    );
    return p && this.access(p);
  }

  /** The scopes principals are granted by (for protected resource metadata and insufficient_scope). */
  scopes(): string[] {
    return [...new Set(this.config.principals.flatMap((p) => (p.oauth?.claim === 'scope' ? [p.oauth.value] : [])))];
  }

  /** stdio and the CLI: the file's `local`, or everything when it names none. */
  local(): CallerAccess {
    const p = this.config.principals.find((s) => s.name === LOCAL_PRINCIPAL);
    return p ? this.access(p) : { principal: LOCAL_PRINCIPAL };
  }

  private access(spec: PrincipalSpec): CallerAccess {
    let limiter = this.limiters.get(spec.name);
    if (!limiter) {
      limiter = new RateLimiter(spec.callsPerMinute);
      this.limiters.set(spec.name, limiter);
    }
    return { principal: spec.name, spec, limiter };
  }
}

function readGrants(file: string): GrantsConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw invalidArgument(`--grants: cannot read ${file}: ${(err as Error).message}`);
  }
  return parseGrants(text, `--grants ${file}`);
}

/**
 * Whether a token's claim holds the value: `scope` is a space-separated list (RFC 8693's
 * `scope`, or an `scp` array as some issuers send), `groups` a list or one string; `sub`
 * and `client_id` (or `azp`, where the issuer names the client so) are compared whole.
 */
export function claimHolds(claims: TokenClaims, claim: string, value: string): boolean {
  const words = (v: unknown): string[] =>
    typeof v === 'string' ? v.split(' ') : Array.isArray(v) ? v.filter((x) => typeof x === 'string') : [];
  switch (claim) {
    case 'scope':
      return words(claims.scope).includes(value) || words(claims.scp).includes(value);
    case 'groups':
      return Array.isArray(claims.groups) ? claims.groups.includes(value) : claims.groups === value;
    case 'client_id':
      return claims.client_id === value || (claims.client_id === undefined && claims.azp === value);
    default:
      return claims[claim] === value;
  }
}
