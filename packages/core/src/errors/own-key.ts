// A table's row by a key that came from outside (an errno, a TLS code, an ssh2 level): own
// keys only, so a key like `constructor` or `__proto__` never reads Object.prototype's.
export function ownValue<T>(table: Readonly<Record<string, T>>, key: string | undefined): T | undefined {
  return key !== undefined && Object.hasOwn(table, key) ? table[key] : undefined;
}
