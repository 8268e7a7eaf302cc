// The MCP answer's size as the client receives it: the serialized CallToolResult, text
// content and structuredContent together. Presenters fit their rows to it with core's
// fitRows, so text and rows are cut at the same row.
import { fitRows, invalidArgument } from '@fleetls/core';
import type { McpAnswer } from './tool.js';

/** Bytes of the CallToolResult the MCP face sends for this answer. */
export function answerBytes(a: McpAnswer): number {
  return Buffer.byteLength(
    JSON.stringify({ content: [{ type: 'text', text: a.text }], structuredContent: a.structured }),
    'utf8',
  );
}

/** What one row adds: its text line (escaped as in JSON, with its newline) and its structured row (with a comma). */
export function rowBytes(line: string, item: unknown): number {
  return Buffer.byteLength(JSON.stringify(line), 'utf8') + Buffer.byteLength(JSON.stringify(item), 'utf8');
}

export interface FitOptions {
  /** Rows that could be shown, in order. */
  rows: number;
  rowCost(i: number): number;
  /** The whole answer showing the first `n` rows, saying what was cut when n < rows. */
  build(n: number): McpAnswer;
  maxBytes: number;
}

/**
 * The answer with the most rows that fits `maxBytes` whole. A page shows one row at least
 * (so following its cursor always moves on): a budget below that is a clear error.
 */
export function fitAnswer(o: FitOptions): { answer: McpAnswer; shown: number } {
  const built = new Map<number, McpAnswer>();
  const build = (n: number) => {
    let a = built.get(n);
    if (!a) {
      a = o.build(n);
      built.set(n, a);
    }
    return a;
  };
  const size = (n: number) => answerBytes(build(n));
  const minRows = Math.min(1, o.rows);
  const shown = fitRows({ rows: o.rows, rowCost: o.rowCost, size, maxBytes: o.maxBytes }, minRows);
  if (shown < 0) {
    throw invalidArgument(
      `max_answer_bytes is ${o.maxBytes}, below the ${size(minRows)} bytes this answer needs ` +
        `${minRows > 0 ? 'to show one row' : 'for its host statuses'}: raise --max-answer-bytes ` +
        '(or max_answer_bytes in the inventory defaults), or ask fewer hosts',
    );
  }
  return { answer: build(shown), shown };
}
