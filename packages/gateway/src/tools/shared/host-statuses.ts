// An answer's host status rows when it asks many hosts. A row per host fits a few hundred
// hosts in the default answer (48,000 bytes, 20,000 tokens: an ok row is ~36 tokens); at 5,000 hosts
// (a NATS fleet) the rows alone would be over the budget and the call refused. So every host's
// row is listed while the rows take at most 3/4 of each budget (about 400 hosts at the
// defaults; the rest is the rows'); past that `hosts` lists the failed hosts, up to a quarter
// of the budget, and the ok and pending ones are only counted (pending: a later page
// or a scan still walking has them, and the [PENDING] line names the first). That cut is a
// truncation record (reason host_statuses, with the count of each status) and a text line:
// [NOTE] when every failed host is listed, [WARNING] when some are not.
import type { HostStatus, HostStatusCode } from '@fleetls/core';
import type { GatewayOptions } from '../../fleet/options.js';
import { rowBudgetBytes } from './answer-size.js';
import { failureLines, type HostStatusJson, hostFailureLine, hostStatusJson, type TruncationJson } from './present.js';

export interface FittedHostStatuses {
  /** The hosts listed (all, or the failed ones that fit), in the call's host order. */
  listed: HostStatus[];
  json: { hosts: HostStatusJson[] };
  /** The line saying what is counted and not listed (none when every host is listed). */
  lines: string[];
  /** The cut, for `truncations` (none when every host is listed). */
  truncation?: TruncationJson;
}

/** Of each budget: what every host's row may take, and then the failed hosts' rows. */
const FULL_SHARE = 3 / 4;
const FAILED_SHARE = 1 / 4;

const counted = (s: HostStatus) => s.status === 'ok' || s.status === 'pending';

/**
 * The host statuses an answer carries within `options`' budgets. `lineOf` is the text line a
 * host adds (its failure line; undefined when it adds none), so the text counts too.
 */
export function fitHostStatuses(
  hosts: HostStatus[],
  options: Pick<GatewayOptions, 'maxAnswerBytes' | 'maxAnswerTokens'>,
  lineOf: (s: HostStatus) => string | undefined = () => undefined,
): FittedHostStatuses {
  const { maxAnswerBytes: maxBytes, maxAnswerTokens: maxTokens } = options;
  // As fitAnswer does: tokens scaled to bytes of the byte budget, the larger one counts.
  const scale = maxBytes / maxTokens;
  const json = hosts.map(hostStatusJson);
  let all = 0;
  for (let i = 0; i < hosts.length && all <= maxBytes * FULL_SHARE; i++)
    all += rowBudgetBytes(lineOf(hosts[i]) ?? '', json[i], scale);
  if (all <= maxBytes * FULL_SHARE) return { listed: hosts, json: { hosts: json }, lines: [] };

  const byStatus: Partial<Record<HostStatusCode, number>> = {};
  for (const s of hosts) byStatus[s.status] = (byStatus[s.status] ?? 0) + 1;
  const failed = hosts.flatMap((s, i) => (counted(s) ? [] : [i]));
  const keep: number[] = [];
  let used = 0;
  for (const i of failed) {
    used += rowBudgetBytes(lineOf(hosts[i]) ?? '', json[i], scale);
    if (used > maxBytes * FAILED_SHARE) break;
    keep.push(i);
  }
  const counts = Object.entries(byStatus).map(([status, n]) => `${n} ${status}`);
  const line =
    keep.length === failed.length
      ? `[NOTE] ${hosts.length} hosts: ${counts.join(', ')}; hosts lists the ${failed.length} failed, the others are counted (truncations: host_statuses)`
      : `[WARNING] ${hosts.length} hosts: ${counts.join(', ')}; host statuses cut at a quarter of ${maxBytes} bytes / ${maxTokens} tokens: ` +
        `${keep.length} of ${failed.length} failed hosts listed; ask fewer hosts to see each`;
  return {
    listed: keep.map((i) => hosts[i]),
    json: { hosts: keep.map((i) => json[i]) },
    lines: [line],
    truncation: { reason: 'host_statuses', shown: keep.length, total: hosts.length, by_status: byStatus },
  };
}

/**
 * A listing's host statuses within the budgets, each failed host's line counted
 * (fitHostStatuses), and the lines its text ends with (`failures`): the listed hosts' failure
 * lines and the pending line (failureLines), then what is only counted.
 */
export function fitFailedHosts(
  hosts: HostStatus[],
  path: string,
  multi: boolean,
  options: Pick<GatewayOptions, 'maxAnswerBytes' | 'maxAnswerTokens'>,
): FittedHostStatuses & { failures: string[] } {
  const fitted = fitHostStatuses(hosts, options, (h) => hostFailureLine(h, path, multi));
  return { ...fitted, failures: [...failureLines(fitted.listed, path, multi), ...fitted.lines] };
}
