// Is an address one only this machine can reach? One answer for the agent's plaintext rule
// and the HTTP transport's bind and Host checks. Parsed by hand: core does no I/O (node:net).

/** Four decimal octets, each 0-255, or undefined. */
function ipv4(s: string): number[] | undefined {
  const parts = s.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return undefined;
  return parts.map(Number);
}

/** Eight 16-bit groups of an IPv6 address (with `::` and a trailing dotted IPv4), or undefined. */
function ipv6(s: string): number[] | undefined {
  if (!/^[0-9a-f:.]+$/i.test(s) || s.split('::').length > 2) return undefined;
  const groups = (part: string): number[] | undefined => {
    if (part === '') return [];
    const out: number[] = [];
    const fields = part.split(':');
    for (const [i, f] of fields.entries()) {
      if (i === fields.length - 1 && f.includes('.')) {
        const v4 = ipv4(f);
        if (!v4) return undefined;
        out.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
      } else if (/^[0-9a-f]{1,4}$/i.test(f)) out.push(Number.parseInt(f, 16));
      else return undefined;
    }
    return out;
  };
  const [head, tail] = s.split('::');
  const h = groups(head);
  const t = tail === undefined ? [] : groups(tail);
  if (!h || !t) return undefined;
  if (tail === undefined) return h.length === 8 ? h : undefined;
  const zeros = 8 - h.length - t.length;
  return zeros >= 1 ? [...h, ...Array(zeros).fill(0), ...t] : undefined;
}

/**
 * `localhost`, 127.0.0.0/8, ::1 in any spelling, and IPv4-mapped ::ffff:127.x.y.z;
 * brackets ("[::1]") and an IPv6 zone ("%lo") are allowed. Anything else is not.
 */
export function isLoopback(host: string): boolean {
  const h = host
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/%[\w.-]+$/, '')
    .toLowerCase();
  if (h === 'localhost') return true;
  const v4 = ipv4(h);
  if (v4) return v4[0] === 127;
  const v6 = ipv6(h);
  if (!v6) return false;
  const zeroUpTo = (n: number) => v6.slice(0, n).every((g) => g === 0);
  if (zeroUpTo(7) && v6[7] === 1) return true;
  return zeroUpTo(5) && v6[5] === 0xffff && v6[6] >> 8 === 127;
}

/** The host of an HTTP Host header: "127.0.0.1:8765" → "127.0.0.1", "[::1]:80" → "::1"; '' when absent. */
export function hostOfHostHeader(header: string | undefined): string {
  if (!header) return '';
  if (header.startsWith('[')) return header.slice(1, header.indexOf(']'));
  const colon = header.lastIndexOf(':');
  return colon < 0 ? header : header.slice(0, colon);
}

/**
 * Whether a server bound to `boundHost` may answer a request with this Host header. DNS
 * rebinding: a page of evil.example whose name now resolves to 127.0.0.1 sends
 * `Host: evil.example`, so a loopback server answers loopback names only. A server bound
 * elsewhere is reached by names this cannot know: any is accepted.
 */
export function hostHeaderAllowed(boundHost: string, header: string | undefined): boolean {
  return !isLoopback(boundHost) || isLoopback(hostOfHostHeader(header));
}
