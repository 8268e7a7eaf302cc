// Every answer is bounded in bytes, far under what MCP clients accept (the stock client
// rejects 10 MiB): a listing that does not fit is cut at a line boundary and says so.

/** Default text budget of one answer. */
export const DEFAULT_MAX_ANSWER_BYTES = 256 * 1024;

/**
 * Keeps the leading whole lines whose UTF-8 bytes, joined with '\n', fit in `maxBytes`
 * (so `lines.join('\n')` of the result is at most `maxBytes` bytes). It stops at the first
 * line that does not fit: order is kept, no later shorter line is slipped in.
 */
export function fitToBudget(lines: string[], maxBytes: number): { lines: string[]; cut: boolean } {
  const budget = Number.isFinite(maxBytes) ? Math.max(0, Math.floor(maxBytes)) : maxBytes > 0 ? Infinity : 0;
  let used = 0;
  let n = 0;
  for (; n < lines.length; n++) {
    const cost = Buffer.byteLength(lines[n], 'utf8') + (n > 0 ? 1 : 0);
    if (used + cost > budget) break;
    used += cost;
  }
  return n === lines.length ? { lines, cut: false } : { lines: lines.slice(0, n), cut: true };
}
