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
  const found: ControlByte[] = [];
  collectControlBytes(value, at, found);
  return found;
}

/**
 * findControlBytes' walk, in order, into `found`: loops, not flatMap arrows made per call
 * (every call's arguments pass here, and a closure's optimized code is dropped at each full
 * collection and compiled again).
 */
function collectControlBytes(value: unknown, at: string, found: ControlByte[]): void {
  if (typeof value === 'string') {
    const i = firstControl(value);
    if (i >= 0) found.push({ at, char: codePoint(value.charCodeAt(i)), index: i });
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) collectControlBytes(value[i], `${at}[${i}]`, found);
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) collectControlBytes(v, at ? `${at}.${k}` : k, found);
  }
}

/** `name must not contain control characters (U+0000–U+001F): found U+0000 at index 1`. */
export function controlByteMessage(control: ControlByte): string {
  return `${control.at || 'arguments'} must not contain control characters (U+0000–U+001F): found ${control.char} at index ${control.index}`;
}
