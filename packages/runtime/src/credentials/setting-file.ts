// A file a setting names (token_file, nats_creds, tls_cert…), read whole at start or reload.
import { readFileSync } from 'node:fs';

/** The file's bytes (or text, with `encoding`); a failure names the setting: `token_file: cannot read …`. */
export function readSettingFile(path: string, key: string): Buffer;
export function readSettingFile(path: string, key: string, encoding: 'utf8'): string;
export function readSettingFile(path: string, key: string, encoding?: 'utf8'): Buffer | string {
  try {
    return readFileSync(path, encoding);
  } catch (err) {
    throw new Error(`${key}: cannot read ${path}: ${(err as Error).message}`);
  }
}
