// How a value a person gave is shown in an error message about it.

/** A user's value in an error message: strings quoted and cut, anything else by its type. */
export function quoted(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  return value === undefined ? 'nothing' : typeof value;
}
