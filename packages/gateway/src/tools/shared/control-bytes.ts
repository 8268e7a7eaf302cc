// NUL and the other C0 control characters (U+0000–U+001F) have no place in a tool argument:
// no path a model should ask for holds them, and past this point a NUL ends a C string
// (the SSH exec request, a find predicate) while the agent would treat it as a name byte.
// Every face parses arguments with the same object (schemas.ts argsObject), so this one
// check refuses them on MCP, the CLI and the Fleet API alike, before any host is asked.

export interface ControlByte {
  /** Where in the arguments: `name`, `compare[2]`. */
  at: string;
  /** The character, as U+XXXX. */
  char: string;
  /** Its index in that string. */
  index: number;
}

/** The index of the first C0 character of `s`, or -1. */
function firstControl(s: string): number {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) < 0x20) return i;
  return -1;
}

const codePoint = (code: number) => `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;

/** Every string in `value` (nested arrays and objects included) that holds a C0 character, with its place. */
export function findControlBytes(value: unknown, at = ''): ControlByte[] {
  if (typeof value === 'string') {
    const i = firstControl(value);
    return i < 0 ? [] : [{ at, char: codePoint(value.charCodeAt(i)), index: i }];
  }
  if (Array.isArray(value)) return value.flatMap((v, i) => findControlBytes(v, `${at}[${i}]`));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => findControlBytes(v, at ? `${at}.${k}` : k));
  }
  return [];
}

/** `name must not contain control characters (U+0000–U+001F): found U+0000 at index 1`. */
export function controlByteMessage(control: ControlByte): string {
  return `${control.at || 'arguments'} must not contain control characters (U+0000–U+001F): found ${control.char} at index ${control.index}`;
}
