// Bearer tokens on disk: one file, one line, read at start (and again on reload).
import { readFileSync } from 'node:fs';

/** The token in `path`, trimmed; `key` names the setting in the error (token_file, --token-file). */
export function readToken(path: string, key = 'token_file'): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`${key}: cannot read ${path}: ${(err as Error).message}`);
  }
  const token = text.trim();
  if (token === '') throw new Error(`${key}: ${path} is empty`);
  return token;
}
