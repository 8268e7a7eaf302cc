// The MCP answer's size as the client receives it: the serialized CallToolResult, text
// content and structuredContent together, in bytes; and in tokens (core's estimateTokens,
// counted high) what a model is given of it. Presenters fit their rows to both budgets with
// core's fitRows, so text and rows are cut at the same row, at whichever budget is reached first.
import { estimateTokens, fitRows, invalidArgument } from '@fleetls/core';
import type { GatewayOptions } from '../../fleet/options.js';
import type { McpAnswer } from '../tool.js';

function serialized(a: McpAnswer): string {
  return JSON.stringify({ content: [{ type: 'text', text: a.text }], structuredContent: a.structured });
}

/** Bytes of the CallToolResult the MCP face sends for this answer. */
export function answerBytes(answer: McpAnswer): number {
  return Buffer.byteLength(serialized(answer), 'utf8');
}

/** What serialized() adds around the text's and the structured rows' JSON. */
const FRAME_BYTES = serialized({ text: '', structured: {} }).length - 4;

/**
 * The answer's bytes (whole, as serialized() sends it) and its tokens: the larger of its text
 * content and its structuredContent, each as JSON. A client gives its model one of the two, not
 * both: Claude Code, whose 25,000-token cap the token budget keeps under, passes the model
 * JSON of structuredContent when an answer has one (earlier versions the content array), so
 * each must fit the cap on its own; the byte budget still bounds the two together.
 */
export function answerMeasure(answer: McpAnswer): { bytes: number; tokens: number } {
  const text = JSON.stringify(answer.text);
  const structured = JSON.stringify(answer.structured);
  return {
    bytes: Buffer.byteLength(text, 'utf8') + Buffer.byteLength(structured, 'utf8') + FRAME_BYTES,
    tokens: Math.max(estimateTokens(text), estimateTokens(structured)),
  };
}

/**
 * What one row adds: its text line (escaped as in JSON, with its newline) and its structured
 * row (with a comma) in bytes; in tokens the larger of the two (answerMeasure: a model reads
 * one of them), which sums over rows to at least the tokens of either.
 */
export function rowSize(line: string, item: unknown): { bytes: number; tokens: number } {
  const l = JSON.stringify(line);
  const j = JSON.stringify(item);
  return {
    bytes: Buffer.byteLength(l, 'utf8') + Buffer.byteLength(j, 'utf8') + 2,
    tokens: Math.max(estimateTokens(l), estimateTokens(j)) + 1,
  };
}

/**
 * A measure in bytes of the byte budget: tokens scaled to bytes (`scale` = max bytes ÷ max
 * tokens), the larger of the two, so that one sum is held under both budgets.
 */
export function budgetBytes(bytes: number, tokens: number, scale: number): number {
  return Math.max(bytes, Math.ceil(tokens * scale));
}

/** One text line and its JSON item (rowSize) in bytes of the byte budget (budgetBytes). */
export function rowBudgetBytes(line: string, item: unknown, scale: number): number {
  const r = rowSize(line, item);
  return budgetBytes(r.bytes, r.tokens, scale);
}

/** The budget that cuts an answer: the warning says `answer cut at ${words}`, the record the same. */
export interface AnswerCut {
  unit: 'bytes' | 'tokens';
  limit: number;
  /** "48000 bytes", "20000 tokens". */
  words: string;
}

function answerCut(unit: AnswerCut['unit'], limit: number): AnswerCut {
  return { unit, limit, words: `${limit} ${unit}` };
}

/**
 * The cut's record in `truncations`, in the warning's words: the budget (reason `bytes` or
 * `tokens`, and its limit) and how many of the page's rows were shown. No host or directory:
 * the answer was cut, not a host's walk.
 */
export function cutRecord(cut: AnswerCut, shown: number, total: number) {
  return { reason: cut.unit, limit: cut.limit, shown, total };
}

export interface FitOptions {
  /** Rows that could be shown, in order. */
  rows: number;
  /** What row `i` adds (rowSize of its line and its structured row). */
  rowCost(i: number): { bytes: number; tokens: number };
  /**
   * The whole answer showing the first `n` rows, saying what was cut when n < rows; `cut`
   * is the budget that cuts, for its warning (`cut.words`) and its record (cutRecord).
   */
  build(n: number, cut: AnswerCut): McpAnswer;
  options: Pick<GatewayOptions, 'maxAnswerBytes' | 'maxAnswerTokens'>;
}

/**
 * The answer with the most rows that fits both budgets whole. A page shows one row at least
 * (so following its cursor always moves on): a budget below that is a clear error.
 */
export function fitAnswer(options: FitOptions): { answer: McpAnswer; shown: number } {
  const fit = new AnswerFit(options);
  const minRows = Math.min(1, options.rows);
  const shown = fitRows(fit, minRows);
  if (shown < 0) {
    const { maxAnswerBytes: maxBytes, maxAnswerTokens: maxTokens } = options.options;
    const m = answerMeasure(fit.build(minRows));
    throw invalidArgument(
      `max_answer_bytes is ${maxBytes} and max_answer_tokens ${maxTokens}, below the ${m.bytes} bytes ` +
        `(${m.tokens} tokens) this answer needs ` +
        `${minRows > 0 ? 'to show one row' : 'for its host statuses'}: raise --max-answer-bytes or --max-answer-tokens ` +
        '(or max_answer_bytes, max_answer_tokens in the inventory defaults), or ask fewer hosts',
    );
  }
  return { answer: fit.build(shown), shown };
}

/**
 * One answer's fit, as core's fitRows asks it (rowCost, size). A class, not closures made per
 * call: V8 keeps a function's optimized code only while a function of it lives, so a closure
 * made per call lost its code at each full collection and was compiled again (TurboFan, with
 * the row's layout inlined) within the next calls; a method's lives as long as its class.
 */
class AnswerFit {
  readonly rows: number;
  readonly maxBytes: number;
  /** fitRows fits one measure: tokens are scaled to bytes of the byte budget, so the larger of the two is what must stay under maxBytes. */
  private readonly scale: number;
  /** The budget the rows pass first: the warning says `answer cut at ${words}`. */
  private readonly cutAt: AnswerCut;
  private readonly costs: { bytes: number; tokens: number }[] = [];
  private readonly built = new Map<number, McpAnswer>();

  constructor(private readonly options: FitOptions) {
    const { maxAnswerBytes: maxBytes, maxAnswerTokens: maxTokens } = options.options;
    this.rows = options.rows;
    this.maxBytes = maxBytes;
    this.scale = maxBytes / maxTokens;
    // Each row is measured once, and only up to where a budget is passed: a page of a 5,000-row
    // limit that shows 150 does not stringify the other 4,850. The warning names the budget the
    // rows pass first.
    let bytes = 0;
    let tokens = 0;
    for (let i = 0; i < options.rows && bytes <= maxBytes && tokens * this.scale <= maxBytes; i++) {
      const r = this.measured(i);
      bytes += r.bytes;
      tokens += r.tokens;
    }
    this.cutAt = tokens * this.scale > bytes ? answerCut('tokens', maxTokens) : answerCut('bytes', maxBytes);
  }

  private measured(i: number): { bytes: number; tokens: number } {
    this.costs[i] ??= this.options.rowCost(i);
    return this.costs[i];
  }

  build(n: number): McpAnswer {
    let a = this.built.get(n);
    if (!a) {
      a = this.options.build(n, this.cutAt);
      this.built.set(n, a);
    }
    return a;
  }

  size(n: number): number {
    const m = answerMeasure(this.build(n));
    return budgetBytes(m.bytes, m.tokens, this.scale);
  }

  rowCost(i: number): number {
    const r = this.measured(i);
    return budgetBytes(r.bytes, r.tokens, this.scale);
  }
}
