// diff_directory's text: the groups (identical hosts cost one line however many there are),
// then each differing entry with one line per value, naming groups rather than repeating
// their hosts. Where every value is present and of one type, only the attributes that
// differ are shown.

import { displayPath, formatMtime, octalMode } from '../render/display.js';
import type { DiffDifference, DiffGroup, DiffValue } from './dir-diff.js';

/** One line per group: `A  3 hosts (baseline): web-1, web-2, web-4`. */
export function diffGroupLines(groups: readonly DiffGroup[]): string[] {
  return groups.map(
    (g, i) =>
      `${g.id}  ${g.hosts.length} host${g.hosts.length === 1 ? '' : 's'}${i === 0 ? ' (baseline)' : ''}: ${g.hosts.join(', ')}`,
  );
}

type Attr = 'type' | 'size' | 'mode' | 'owner' | 'mtime' | 'target' | 'error';

function attrText(v: DiffValue, a: Attr): string | undefined {
  switch (a) {
    case 'type':
      return v.type;
    case 'size':
      return v.size === undefined ? undefined : `size ${v.size}`;
    case 'mode':
      return v.mode === undefined ? undefined : `mode ${octalMode(v.mode)}`;
    case 'owner':
      return v.uid === undefined ? undefined : `owner ${v.uid}:${v.gid}`;
    case 'mtime':
      return v.mtimeSec === undefined ? undefined : `mtime ${formatMtime(v.mtimeSec, v.mtimeNsec ?? 0, 0)}`;
    case 'target':
      return v.linkTarget === undefined ? undefined : `-> ${displayPath(v.linkTarget)}`;
    case 'error':
      return v.error === undefined ? undefined : `[${v.error}]`;
  }
}

const ATTRS: Attr[] = ['type', 'target', 'size', 'mode', 'owner', 'mtime', 'error'];

/**
 * The hosts of a value, as group ids where a whole group has it (its hosts that were not
 * compared aside), then the other hosts by name.
 */
function whoText(hosts: readonly string[], groups: readonly DiffGroup[], notCompared: ReadonlySet<string>): string {
  const have = new Set(hosts);
  const parts: string[] = [];
  const named = new Set<string>();
  for (const g of groups) {
    const compared = g.hosts.filter((h) => !notCompared.has(h));
    if (compared.length > 0 && compared.every((h) => have.has(h))) {
      parts.push(g.id);
      for (const h of g.hosts) named.add(h);
    }
  }
  for (const h of hosts) if (!named.has(h)) parts.push(h);
  return parts.join(', ');
}

/** The lines of one differing entry: its path, then `  <hosts>  <value>` per value. */
export function diffDifferenceLines(difference: DiffDifference, groups: readonly DiffGroup[]): string[] {
  const present = difference.values.every((x) => x.value.present);
  const oneType = present && new Set(difference.values.map((x) => x.value.type)).size === 1;
  const shown = ATTRS.filter(
    (a) => !oneType || a === 'error' || new Set(difference.values.map((x) => attrText(x.value, a) ?? '')).size > 1,
  );
  const notCompared = new Set(difference.notCompared);
  const lines = [displayPath(difference.path)];
  for (const { value, hosts } of difference.values) {
    const text = value.present
      ? shown
          .map((a) => attrText(value, a))
          .filter((t) => t !== undefined)
          .join(' ') || 'present'
      : 'absent';
    lines.push(`  ${whoText(hosts, groups, notCompared)}: ${text}`);
  }
  if (difference.notCompared.length > 0)
    lines.push(`  not compared (listed in part): ${difference.notCompared.join(', ')}`);
  return lines;
}
