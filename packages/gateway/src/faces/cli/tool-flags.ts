// A tool's CLI flags, derived from its declaration: one flag per argument (`max_depth` →
// `--max-depth`), its help from the argument's `.describe()` with the default and bounds
// read from the schema, its choices from a z.enum. A tool's `cli` face adds only what the
// schema cannot say: the command, the positional syntax, CLI defaults and switches, render.
// The positional argument is the tool's `host` and `path` (`SELECTOR:PATH`), or `host` alone.
import { Option } from 'commander';
import type { z } from 'zod';
import { cliHelp } from '../../tools/schemas.js';
import type { AnyTool } from '../../tools/tool.js';
import { intFlag } from './flags.js';
import { parseTarget } from './target.js';

/** Arguments the positional argument carries: no flag of their own. */
const POSITIONAL = new Set(['host', 'path']);

/** One derived flag and the argument it sets. */
export interface ToolFlag {
  key: string;
  option: Option;
}

/** `max_depth` → `--max-depth`. */
export const flagName = (key: string) => `--${key.replace(/_/g, '-')}`;

interface ArgShape {
  inner: z.core.$ZodType;
  description?: string;
  dflt?: unknown;
}

/** Through .optional() and .default() to the value's own schema, keeping the description and default. */
function unwrap(schema: z.core.$ZodType): ArgShape {
  let s = schema;
  let description: string | undefined;
  let dflt: unknown;
  for (;;) {
    description ??= cliHelp.get(s)?.help ?? (s as { description?: string }).description;
    const def = s._zod.def as { type: string; innerType?: z.core.$ZodType; defaultValue?: unknown };
    if (def.type === 'default') dflt = def.defaultValue;
    if ((def.type === 'default' || def.type === 'optional') && def.innerType) s = def.innerType;
    else return { inner: s, description, dflt };
  }
}

/** "Rows per page" → "rows per page"; an initialism ("ISO 8601 …") stays as written. */
const helpWords = (text: string) => (/^[A-Z][a-z]/.test(text) ? text[0].toLowerCase() + text.slice(1) : text);

function shown(v: unknown): string | undefined {
  if (v === undefined || v === '') return undefined;
  return Array.isArray(v) ? v.join(',') : String(v);
}

function optionOf(tool: AnyTool, key: string, schema: z.core.$ZodType): Option | undefined {
  const { inner, description, dflt } = unwrap(schema);
  const cliDefault = tool.cli?.defaults?.[key];
  const help = helpWords(cliWording(description ?? key, tool));
  const def = inner._zod.def as { type: string; element?: z.core.$ZodType; entries?: Record<string, string> };
  const name = flagName(key);
  const notes: string[] = [];
  const d = shown(cliDefault ?? dflt);
  // A face that follows pages shows every row unless --limit asks for a page (faces/cli/follow.ts).
  if (key === 'limit' && tool.cli?.follows) notes.push('default: every row, fetched a page at a time');
  else if (d !== undefined) notes.push(`default ${d}`);
  if (def.type === 'boolean') {
    // A switch only turns a thing on: an argument that is on by default is turned off by a
    // switch the tool's face names (du's --cross-file-systems).
    if (dflt === true) return undefined;
    return new Option(name, help);
  }
  let option: Option;
  if (def.type === 'number') {
    const { minValue, maxValue } = inner as z.ZodNumber;
    if (minValue !== null && maxValue !== null) notes.push(`${minValue}-${maxValue}`);
    option = new Option(`${name} <n>`).argParser(intFlag(name));
  } else if (def.type === 'array') {
    const element = def.element?._zod.def as { entries?: Record<string, string> } | undefined;
    const choices = Object.values(element?.entries ?? {});
    if (choices.length > 0) notes.push(`comma-separated: ${choices.join(',')}`);
    option = new Option(`${name} <list>`).argParser((v: string) => v.split(',').map((c) => c.trim()));
  } else {
    option = new Option(`${name} <${name.slice(2)}>`);
    if (def.type === 'enum') option.choices(Object.values(def.entries ?? {}));
  }
  option.description = notes.length > 0 ? `${help} (${notes.join('; ')})` : help;
  return option;
}

const flagCache = new WeakMap<AnyTool, ToolFlag[]>();

/** The flags of a tool's subcommand, in declaration order: its arguments', then its switches. */
export function toolFlags(tool: AnyTool): ToolFlag[] {
  let flags = flagCache.get(tool);
  if (flags) return flags;
  const face = tool.cli;
  flags = [];
  for (const [key, schema] of Object.entries(tool.input)) {
    if (POSITIONAL.has(key) || face?.omits?.includes(key)) continue;
    const option = optionOf(tool, key, schema);
    if (option) flags.push({ key, option });
  }
  for (const sw of face?.switches ?? []) flags.push({ key: '', option: new Option(sw.flag, sw.help) });
  flagCache.set(tool, flags);
  return flags;
}

/**
 * The tool's arguments from the positional argument and commander's parsed flags; a flag not
 * given is left out, so the tool's default applies (or the face's CLI default).
 */
export function toolArgs(tool: AnyTool, positional: string | undefined, parsed: Record<string, unknown>) {
  const args: Record<string, unknown> = {};
  if ('path' in tool.input) {
    const { selector, path } = parseTarget(positional ?? '');
    Object.assign(args, { host: selector, path });
  } else if ('host' in tool.input && positional !== undefined) args.host = positional;
  Object.assign(args, tool.cli?.defaults);
  for (const { key, option } of toolFlags(tool)) {
    const v = parsed[option.attributeName()];
    if (key !== '' && v !== undefined) args[key] = v;
  }
  for (const sw of tool.cli?.switches ?? []) {
    if (parsed[new Option(sw.flag).attributeName()] === true) Object.assign(args, sw.sets);
  }
  return args;
}

/**
 * A tool's message in the CLI's words: an argument named as the flag the user typed
 * ("top_n must be…" → "--top-n must be…"), `host` and `path` as the positional argument.
 * The names come from the tool's declaration; a one-word name is only renamed where it is
 * the subject ("limit must", not "unknown host 'limit'").
 */
export function cliWording(message: string, tool: AnyTool): string {
  let m = message.replace(/^host(?=[: ])/, 'SELECTOR').replace(/^path(?=[: ])/, 'PATH');
  for (const key of Object.keys(tool.input)) {
    if (POSITIONAL.has(key)) continue;
    const re = key.includes('_') ? new RegExp(`\\b${key}\\b`, 'g') : new RegExp(`\\b${key}\\b(?= must)`, 'g');
    m = m.replace(re, flagName(key));
  }
  return m;
}
