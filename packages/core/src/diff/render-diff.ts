// diff_directory's text: the groups (identical hosts cost one line however many there are),
// then each differing entry with one line per value, naming groups rather than repeating
// their hosts. Where every value is present and of one type, only the attributes that
// differ are shown.

import { displayPath, formatMtime, octalMode } from '../render/display.js';
import type { DiffDifference, DiffGroup, DiffValue } from './dir-diff.js';

/**
 * One line per group: `A  3 hosts (baseline): web-1, web-2, web-4`. With `shown`, group i
 * names its first shown[i] hosts and counts the others: `A  9990 hosts (baseline): h-0, h-1 and 9988 more`.
 */
export function diffGroupLines(groups: readonly DiffGroup[], shown?: readonly number[]): string[] {
  return groups.map((g, i) => diffGroupLine(g, i === 0, shown?.[i] ?? g.hosts.length));
}

/** A group's line naming its first `shown` hosts (diffGroupLines). */
export function diffGroupLine(group: DiffGroup, baseline: boolean, shown: number): string {
  const n = group.hosts.length;
  const head = `${group.id}  ${n} host${n === 1 ? '' : 's'}${baseline ? ' (baseline)' : ''}`;
  if (shown <= 0) return head;
  const names = group.hosts.slice(0, shown).join(', ');
  return `${head}: ${names}${shown >= n ? '' : ` and ${n - shown} more`}`;
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
 * The hosts of a value as group ids where a whole group has it (its hosts that were not
 * compared aside), and the other hosts by name.
 */
export function valueHolders(
  hosts: readonly string[],
  groups: readonly DiffGroup[],
  notCompared: ReadonlySet<string>,
): { groups: string[]; others: string[] } {
  const have = new Set(hosts);
  const ids: string[] = [];
  const named = new Set<string>();
  for (const g of groups) {
    let compared = 0;
    let all = true;
    for (const h of g.hosts) {
      if (notCompared.has(h)) continue;
      compared++;
      if (!have.has(h)) {
        all = false;
        break;
      }
    }
    if (compared > 0 && all) {
      ids.push(g.id);
      for (const h of g.hosts) named.add(h);
    }
  }
  return { groups: ids, others: hosts.filter((h) => !named.has(h)) };
}

/** `names` joined, the first `most` of them, the others counted. */
function namesText(names: readonly string[], most: number): string {
  if (names.length <= most) return names.join(', ');
  return `${names.slice(0, most).join(', ')} and ${names.length - most} more`;
}

/**
 * The lines of one differing entry: its path, then `  <hosts>  <value>` per value. Hosts
 * not compared are named up to `maxNotCompared`, the others counted.
 */
export function diffDifferenceLines(
  difference: DiffDifference,
  groups: readonly DiffGroup[],
  maxNotCompared = Number.POSITIVE_INFINITY,
): string[] {
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
    const who = valueHolders(hosts, groups, notCompared);
    lines.push(`  ${[...who.groups, ...who.others].join(', ')}: ${text}`);
  }
  if (difference.notCompared.length > 0)
    lines.push(`  not compared (listed in part): ${namesText(difference.notCompared, maxNotCompared)}`);
  return lines;
}
