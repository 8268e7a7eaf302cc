// Bearer tokens on disk: one file, one line, read at start (and again on reload).
import { readSettingFile } from './setting-file.js';

/** The token in `path`, trimmed; `key` names the setting in the error (token_file, --token-file). */
export function readToken(path: string, key = 'token_file'): string {
  const token = readSettingFile(path, key, 'utf8').trim();
  if (token === '') throw new Error(`${key}: ${path} is empty`);
  return token;
}
