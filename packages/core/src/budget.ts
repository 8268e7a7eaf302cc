// Every answer is bounded in bytes, far under what MCP clients accept (the stock client
// rejects 10 MiB): a listing that does not fit is cut at a line boundary and says so.

/** Default text budget of one answer. */
export const DEFAULT_MAX_ANSWER_BYTES = 256 * 1024;

/**
 * Text of one answer, bounded in bytes: lines are taken while they fit, and the rest are
 * counted. `reserve` keeps room for the lines that always follow (warnings, host failures).
 */
export class TextBudget {
  private used = 0;
  /** Lines refused since the budget ran out. */
  dropped = 0;

  constructor(
    readonly maxBytes: number,
    reserve = 0,
  ) {
    this.used = Math.min(reserve, Math.floor(maxBytes / 2));
  }

  get exhausted(): boolean {
    return this.dropped > 0;
  }

  /** Takes the line if it fits (and nothing was refused before, so cuts land on a row boundary). */
  take(line: string): boolean {
    if (this.dropped > 0) {
      this.dropped++;
      return false;
    }
    const cost = Buffer.byteLength(line, 'utf8') + 1;
    if (this.used + cost > this.maxBytes) {
      this.dropped++;
      return false;
    }
    this.used += cost;
    return true;
  }
}

/** Room kept for closing lines: a warning or two plus one line per failed host. */
export function reserveFor(hostCount: number): number {
  return 1024 + 256 * hostCount;
}
