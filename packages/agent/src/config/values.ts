// The agent's setting values, each parsed and checked where it is read (flags or the file):
// every error names the key it is about.
import * as nodePath from 'node:path';

export const DEFAULT_LISTEN = '127.0.0.1:7443';
/** A Unix socket's defaults: the owner and the group may connect, no one else. */
export const DEFAULT_SOCKET_MODE = 0o660;
export const DEFAULT_SOCKET_GROUP = 'fleetls';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function parseListen(value: string, key = 'listen'): { host: string; port: number } {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(value);
  if (!m) throw new ConfigError(`${key}: expected HOST:PORT (IPv6 as [ADDR]:PORT), got ${JSON.stringify(value)}`);
  const port = Number(m[3]);
  if (port > 65535) throw new ConfigError(`${key}: port must be 0-65535, got ${port}`);
  return { host: m[1] ?? m[2], port };
}

/** `unix:PATH` → the absolute, normalised PATH; undefined for anything else. */
export function parseUnixListen(value: string, key = 'listen'): string | undefined {
  if (!value.startsWith('unix:')) return undefined;
  const p = value.slice('unix:'.length);
  if (!nodePath.isAbsolute(p) || p.includes('\0') || p.endsWith('/')) {
    throw new ConfigError(`${key}: expected unix:/ABSOLUTE/PATH of a socket, got ${JSON.stringify(value)}`);
  }
  // sun_path holds 108 bytes with its NUL.
  if (Buffer.byteLength(p) > 107) throw new ConfigError(`${key}: socket path longer than 107 bytes: ${p}`);
  return nodePath.normalize(p);
}

/**
 * An octal mode for the socket: "0660" or "660". YAML reads an unquoted 0660 as the
 * number 660, so a number is read by its decimal digits, as chmod reads them.
 */
export function parseSocketMode(value: unknown, key = 'socket_mode'): number {
  const text = typeof value === 'number' && Number.isInteger(value) ? String(value) : value;
  if (typeof text !== 'string' || !/^0?[0-7]{3}$/.test(text)) {
    throw new ConfigError(`${key}: expected an octal mode 000-777 (e.g. 0660), got ${JSON.stringify(value)}`);
  }
  const n = Number.parseInt(text, 8);
  if (n & 0o007) {
    throw new ConfigError(
      `${key}: ${formatMode(n)} gives users outside the group access; the last digit must be 0 (e.g. 0660)`,
    );
  }
  return n;
}

export function formatMode(mode: number): string {
  return `0${mode.toString(8).padStart(3, '0')}`;
}

export function positiveInt(value: unknown, key: string, min = 1): number {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > 2 ** 31 - 1) {
    throw new ConfigError(`${key}: expected an integer >= ${min}, got ${JSON.stringify(value)}`);
  }
  return n;
}

/** A non-empty string setting, or undefined when absent. */
export function str(value: unknown, key: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value === '') throw new ConfigError(`${key}: expected a non-empty string`);
  return value;
}
