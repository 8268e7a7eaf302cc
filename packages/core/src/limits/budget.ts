// Every answer is bounded in bytes, whole: what a client receives (text and structured rows
// together) stays under a budget well inside what MCP clients accept (Claude Code writes a
// result over 50,000 characters to a file and hands its model a path instead, and refuses one
// over 25,000 tokens). A listing that does not fit is cut after a row.

/**
 * Default budget of one whole answer in bytes: 48,000, so in characters (never more than its
 * UTF-8 bytes) too, under Claude Code's 50,000 with room for the JSON-RPC frame around it.
 */
export const DEFAULT_MAX_ANSWER_BYTES = 48_000;
/**
 * Default budget of an answer's text, and of its structured rows, in tokens as estimateTokens
 * counts them (high; a client gives its model one of the two): 20,000, a fifth under Claude
 * Code's 25,000 cap. On dense names (digits, short names, non-ASCII) 48,000 bytes
 * can be 33,000 o200k tokens; whichever budget is reached first cuts the answer.
 */
export const DEFAULT_MAX_ANSWER_TOKENS = 20_000;

export interface RowFit {
  /** Rows that could be shown. */
  rows: number;
  /** Bytes that row `i` adds to the answer, near enough to aim with (exactness comes from `size`). */
  rowCost(i: number): number;
  /** The exact size of the answer that shows the first `n` rows (with what it says about the rest). */
  size(n: number): number;
  maxBytes: number;
}

/**
 * The most rows whose whole answer fits `maxBytes`, or -1 when not even the answer with
 * `minRows` rows fits (the caller says what is too small). Aims with the row costs, then
 * checks the exact size, so the bound holds whatever the answer's wording costs.
 */
export function fitRows(fit: RowFit, minRows = 0): number {
  let rowsCost = 0;
  for (let i = 0; i < fit.rows && rowsCost <= fit.maxBytes; i++) rowsCost += fit.rowCost(i);
  // Everything shown needs no cut warning and no cursor, so it can fit where one row fewer does
  // not; laying out everything is skipped when the rows alone are far over.
  if (rowsCost <= fit.maxBytes && fit.size(fit.rows) <= fit.maxBytes) return fit.rows;
  let n = 0;
  let used = fit.size(0);
  while (n < fit.rows && used + fit.rowCost(n) <= fit.maxBytes) used += fit.rowCost(n++);
  // The answer's own words change with n (counts, positions, a cursor): step back until it fits...
  let size = fit.size(n);
  while (size > fit.maxBytes && n > minRows) {
    let drop = 0;
    for (let freed = 0; freed < size - fit.maxBytes && n - drop > minRows; drop++) freed += fit.rowCost(n - drop - 1);
    n -= Math.max(1, drop);
    size = fit.size(n);
  }
  // ...or forward while the next row still fits.
  while (n + 1 < fit.rows && fit.size(n + 1) <= fit.maxBytes) n++;
  return n >= minRows && fit.size(n) <= fit.maxBytes ? n : -1;
}
