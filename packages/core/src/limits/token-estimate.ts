// A cheap, deliberately high count of the tokens a model's tokenizer makes of a string, so an
// answer can be held under a client's token cap (Claude Code refuses a tool result over 25,000
// tokens) without shipping a tokenizer. Byte-pair tokenizers spend far more tokens per byte on
// short names, digits, punctuation and non-ASCII than on words, so a byte budget alone either
// wastes room on ordinary names or overruns the cap on dense ones. Weights were set against
// o200k on answers over trees of each kind (bench answer-size; gateway answer-tokens.test):
// at least as many tokens as o200k on the densest, about 1.4x on ordinary names.

const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isDigit = (c: number) => c >= 48 && c <= 57;
const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13;
const isPunct = (c: number) => c < 128 && !isLetter(c) && !isDigit(c) && !isSpace(c);

/** Tokens of `text`, counted high: letter runs of 4, digit runs of 3, a whitespace run as one, punctuation 0.75 each, non-ASCII by its UTF-8 length. */
export function estimateTokens(text: string): number {
  let t = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    let j = i + 1;
    if (isLetter(c)) {
      while (j < text.length && isLetter(text.charCodeAt(j))) j++;
      t += Math.ceil((j - i) / 4);
    } else if (isDigit(c)) {
      while (j < text.length && isDigit(text.charCodeAt(j))) j++;
      t += Math.ceil((j - i) / 3);
    } else if (isSpace(c)) {
      while (j < text.length && isSpace(text.charCodeAt(j))) j++;
      t += 1;
    } else if (c < 128) {
      while (j < text.length && isPunct(text.charCodeAt(j))) j++;
      t += (j - i) * 0.75;
    } else {
      // Two UTF-8 bytes: 1.25; three (CJK, most scripts): 1.5; four (emoji, rare CJK: a surrogate
      // pair, 1.5 each), which tokenizers often split to bytes: 3.
      t += c < 0x800 ? 1.25 : 1.5;
    }
    i = j;
  }
  return Math.ceil(t);
}
