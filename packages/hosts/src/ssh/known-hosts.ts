// A small known_hosts reader (no maintained parser exists on npm): plain and hashed host
// patterns, `[host]:port`, `*`/`?` wildcards, `!negation` and `@revoked`, as OpenSSH's
// hostfile.c matches them. `@cert-authority` lines are ignored: ssh2 has no host certificates.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export type HostKeyVerdict = 'ok' | 'unknown' | 'mismatch' | 'revoked';

interface KnownHostLine {
  marker: '' | 'revoked' | 'cert-authority';
  patterns: string;
  keyType: string;
  key: Buffer;
}

/** `SHA256:<base64, unpadded>` of a raw public key blob, as `ssh-keygen -l` prints it. */
export function fingerprint(keyBlob: Buffer): string {
  return `SHA256:${createHash('sha256').update(keyBlob).digest('base64').replace(/=+$/, '')}`;
}

/** The key type named inside an SSH public key blob (its first string). */
export function keyTypeOf(keyBlob: Buffer): string {
  if (keyBlob.length < 4) return '';
  const len = keyBlob.readUInt32BE(0);
  if (len > keyBlob.length - 4) return '';
  return keyBlob.subarray(4, 4 + len).toString('latin1');
}

/** The name known_hosts stores for a host: `host` on port 22, `[host]:port` otherwise. */
export function knownHostsName(host: string, port: number): string {
  const h = host.toLowerCase();
  return port === 22 ? h : `[${h}]:${port}`;
}

export function parseKnownHosts(text: string): KnownHostLine[] {
  const out: KnownHostLine[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const fields = line.split(/[ \t]+/);
    let marker: KnownHostLine['marker'] = '';
    if (fields[0].startsWith('@')) {
      const m = fields.shift()!;
      if (m === '@revoked') marker = 'revoked';
      else if (m === '@cert-authority') marker = 'cert-authority';
      else continue; // unknown marker: OpenSSH skips the line
    }
    if (fields.length < 3) continue;
    const [patterns, keyType, b64] = fields;
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) continue;
    const key = Buffer.from(b64, 'base64');
    if (key.length === 0) continue;
    out.push({ marker, patterns, keyType, key });
  }
  return out;
}

/** OpenSSH `match_pattern`: `*` and `?` wildcards, case-insensitive. */
function globMatch(pattern: string, name: string): boolean {
  const re = new RegExp(
    `^${pattern
      .split('')
      .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[\\^$.|+()[\]{}]/g, '\\$&')))
      .join('')}$`,
    'is',
  );
  return re.test(name);
}

function hashedMatch(entry: string, name: string): boolean {
  // |1|base64(salt)|base64(HMAC-SHA1(salt, name))
  const parts = entry.split('|');
  if (parts.length !== 4 || parts[1] !== '1') return false;
  const salt = Buffer.from(parts[2], 'base64');
  const want = Buffer.from(parts[3], 'base64');
  const got = createHmac('sha1', salt).update(name).digest();
  return want.length === got.length && timingSafeEqual(want, got);
}

/** OpenSSH `match_hostname`: true when a positive pattern matches and no negated one does. */
function hostMatches(patterns: string, name: string): boolean {
  if (patterns.startsWith('|')) return hashedMatch(patterns, name);
  let positive = false;
  for (const p of patterns.split(',')) {
    if (p === '') continue;
    const negated = p.startsWith('!');
    if (globMatch(negated ? p.slice(1) : p, name)) {
      if (negated) return false;
      positive = true;
    }
  }
  return positive;
}

/**
 * Checks a server's raw host key blob against known_hosts text. `revoked` wins over
 * everything; `ok` needs an exact key on a matching line; `mismatch` means the host is
 * known with another key of the same type; anything else is `unknown`.
 */
export function verifyHostKey(text: string, host: string, port: number, keyBlob: Buffer): HostKeyVerdict {
  const name = knownHostsName(host, port);
  const keyType = keyTypeOf(keyBlob);
  let ok = false;
  let sameTypeOther = false;
  for (const line of parseKnownHosts(text)) {
    if (line.marker === 'cert-authority') continue;
    if (!hostMatches(line.patterns, name)) continue;
    const same = line.key.equals(keyBlob);
    if (line.marker === 'revoked') {
      if (same) return 'revoked';
      continue;
    }
    if (same) ok = true;
    else if (keyTypeOf(line.key) === keyType) sameTypeOther = true;
  }
  if (ok) return 'ok';
  return sameTypeOther ? 'mismatch' : 'unknown';
}

/** Key types known_hosts holds for this host (to steer ssh2's host key negotiation). */
export function knownKeyTypes(text: string, host: string, port: number): string[] {
  const name = knownHostsName(host, port);
  const types = new Set<string>();
  for (const line of parseKnownHosts(text)) {
    if (line.marker === '' && hostMatches(line.patterns, name)) types.add(keyTypeOf(line.key));
  }
  return [...types];
}

/**
 * Why a host key was refused, in the words an operator acts on: the name known_hosts is
 * searched for (`[host]:port` off port 22), the file read, and, for an unknown key, the
 * exact line that would add it and the ssh-keyscan command that fetches it (to compare the
 * fingerprint with the host's own before trusting it).
 */
export function hostKeyRefusal(
  label: string,
  verdict: Exclude<HostKeyVerdict, 'ok'>,
  target: { host: string; port: number; knownHostsFile: string },
  keyBlob: Buffer,
): string {
  const name = knownHostsName(target.host, target.port);
  const type = keyTypeOf(keyBlob);
  const fp = fingerprint(keyBlob);
  const file = target.knownHostsFile;
  if (verdict === 'revoked') return `host key for ${label} is revoked (${fp}): marked @revoked for ${name} in ${file}`;
  if (verdict === 'mismatch') {
    return `host key for ${label} is changed (${fp}): ${file} holds another ${type} key for ${name}; if the host was rebuilt, remove it with: ssh-keygen -R '${name}' -f ${file}`;
  }
  const port = target.port === 22 ? '' : `-p ${target.port} `;
  const scanType = type.startsWith('ssh-') ? type.slice(4) : type;
  return `host key for ${label} is unknown (${fp}): no line for ${name} in ${file}; after checking that fingerprint on the host (ssh-keygen -lf), add the line "${name} ${type} ${keyBlob.toString('base64')}", e.g. with: ssh-keyscan ${port}-t ${scanType} ${target.host} >> ${file}`;
}
