// A Browse, Space or Compare call that outlives its deadline answers a page of a scan (issue
// 21): what arrived, the rest as `pending` hosts, and a next_cursor that continues it. The
// panel shows where the scan stands (hosts done of total, entries seen, elapsed, the time
// left, pending and failed hosts), follows next_cursor page after page (each page waits on
// the gateway for hosts to answer; the view merges its rows), reads ScanStatus in between,
// and Cancel ends the scan's walks (ScanStatus cancel=true), then takes what was kept. The
// scans a tab started are kept in its sessionStorage for the Scans view.
import { query, type ViewContext } from './context.js';
import { h } from './dom.js';
import type { JsonStatus } from './format.js';

/** ScanInfo of the Fleet API as Connect JSON (uint64 as strings, defaults left out). */
export interface ScanJson {
  id: string;
  state?: string;
  complete?: boolean;
  hostsDone?: number;
  hostsTotal?: number;
  hostsDelivered?: number;
  failed?: string[];
  failedCount?: number;
  entriesSeen?: string;
  elapsedMs?: string;
  estimateMs?: string;
  rankingFinal?: boolean;
}

export interface ScanPageLike {
  scan?: ScanJson;
  nextCursor?: string;
  hosts?: JsonStatus[];
}

/** What the Scans view lists: the scans this tab's views started. */
export interface KeptScan {
  id: string;
  cursor: string;
  /** The view and its URL state that started it (?view=browse&…). */
  view: string;
  href: string;
  started: number;
}

const SCANS_KEY = 'fleetls-scans';
const KEEP = 20;
/** How often the panel reads ScanStatus while a page waits on the gateway. */
export const STATUS_EVERY_MS = 1000;

export function keptScans(): KeptScan[] {
  try {
    const v = JSON.parse(sessionStorage.getItem(SCANS_KEY) ?? '[]') as KeptScan[];
    return Array.isArray(v) ? v : [];
  } catch {
    return [];
  }
}

/** A scan the gateway no longer holds (expired, or another gateway's) is listed no more. */
export function forget(id: string): void {
  sessionStorage.setItem(SCANS_KEY, JSON.stringify(keptScans().filter((k) => k.id !== id)));
}

function keep(s: KeptScan): void {
  const rest = keptScans().filter((k) => k.id !== s.id);
  sessionStorage.setItem(SCANS_KEY, JSON.stringify([s, ...rest].slice(0, KEEP)));
}

const seconds = (ms: string | number | undefined) => `${(Number(ms ?? 0) / 1000).toFixed(1)} s`;
const count = (n: string | number | undefined) => Number(n ?? 0).toLocaleString('en-US');

export interface ScanProgress {
  root: HTMLElement;
  /** Shows a ScanInfo (and, from a page, the hosts still pending). */
  show(scan: ScanJson, pending?: string[]): void;
  cancel: HTMLButtonElement;
}

/** The progress block's elements that each ScanInfo rewrites. */
interface ProgressParts {
  bar: HTMLElement;
  meter: HTMLElement;
  state: HTMLElement;
  status: HTMLElement;
  fields: Record<'done' | 'entries' | 'elapsed' | 'left', HTMLElement>;
  pendingLine: HTMLElement;
  failedLine: HTMLElement;
  cancel: HTMLButtonElement;
}

function renderProgress(idPrefix: string): { root: HTMLElement; parts: ProgressParts } {
  const bar = h('div', {});
  const meter = h(
    'div',
    {
      class: 'progress',
      role: 'progressbar',
      'aria-label': 'Hosts done',
      'aria-valuemin': 0,
      'aria-valuemax': 1,
      'aria-valuenow': 0,
    },
    bar,
  );
  const dd = (k: string) => h('dd', { 'data-k': k });
  const parts = {
    bar,
    meter,
    state: h('span', { class: 'badge unknown', 'data-state': '', 'data-k': 'state' }, 'running'),
    status: h('p', { class: 'scan-line', role: 'status', id: `${idPrefix}-status` }),
    fields: { done: dd('done'), entries: dd('entries'), elapsed: dd('elapsed'), left: dd('left') },
    pendingLine: h('p', { class: 'muted', 'data-k': 'pending' }),
    failedLine: h('p', { class: 'muted', 'data-k': 'failed' }),
    cancel: h('button', { type: 'button', class: 'danger', id: `${idPrefix}-cancel` }, 'Cancel scan'),
  };
  const { fields } = parts;
  const root = h(
    'div',
    { class: 'scan-progress' },
    h('div', { class: 'row' }, parts.state, parts.status),
    meter,
    h(
      'dl',
      { class: 'kv' },
      h('dt', {}, 'hosts done'),
      fields.done,
      h('dt', {}, 'entries seen'),
      fields.entries,
      h('dt', {}, 'elapsed'),
      fields.elapsed,
      h('dt', {}, 'time left (estimate)'),
      fields.left,
    ),
    parts.pendingLine,
    parts.failedLine,
  );
  return { root, parts };
}

/** The pending hosts' line: named when the last page named them all, else counted. */
function pendingText(word: string, left: number, names: string[]): string {
  const list = `${names.slice(0, 12).join(', ')}${names.length > 12 ? `, … ${names.length - 12} more` : ''}`;
  if (word !== 'running' || left === 0) return '';
  if (names.length === left) return `Pending (${left}): ${list}`;
  return `Pending: ${left} host${left === 1 ? '' : 's'}${names.length ? ` (not on a page yet: ${list})` : ''}`;
}

function showProgress(parts: ProgressParts, scan: ScanJson, lastPending: string[]): void {
  const done = scan.hostsDone ?? 0;
  const total = scan.hostsTotal ?? 0;
  const word = scan.state ?? 'running';
  parts.state.textContent = word;
  parts.state.dataset.state = word;
  parts.state.className = `badge ${word === 'complete' ? 'ok' : word === 'cancelled' ? 'bad' : 'unknown'}`;
  parts.bar.style.width = `${total ? (100 * done) / total : 100}%`;
  parts.meter.setAttribute('aria-valuemax', String(total));
  parts.meter.setAttribute('aria-valuenow', String(done));
  parts.fields.done.textContent = `${done} of ${total}`;
  parts.fields.entries.textContent = count(scan.entriesSeen);
  parts.fields.elapsed.textContent = seconds(scan.elapsedMs);
  parts.fields.left.textContent =
    word !== 'running' ? '—' : scan.estimateMs !== undefined ? `about ${seconds(scan.estimateMs)}` : 'not known yet';
  parts.status.textContent = `Scan ${scan.id} ${word === 'running' ? 'running' : word}: ${done} of ${total} hosts done, ${count(scan.entriesSeen)} entries seen in ${seconds(scan.elapsedMs)}`;
  // The names are the last page's pending hosts: a host done since (or one a whole-answer
  // tool such as a diff holds back until every host is done) is named until the next page.
  parts.pendingLine.textContent = pendingText(word, Math.max(0, total - done), word === 'running' ? lastPending : []);
  const failed = scan.failed ?? [];
  parts.failedLine.textContent = failed.length
    ? `Failed (${scan.failedCount ?? failed.length}): ${failed.slice(0, 12).join(', ')}${(scan.failedCount ?? failed.length) > 12 ? ', …' : ''}`
    : '';
  parts.cancel.disabled = word !== 'running';
}

/** The progress block (shared with the Scans view): bar, figures, pending and failed hosts. */
export function scanProgress(idPrefix: string): ScanProgress {
  const { root, parts } = renderProgress(idPrefix);
  let lastPending: string[] = [];
  return {
    root,
    cancel: parts.cancel,
    show(scan, pending) {
      if (pending) lastPending = pending;
      showProgress(parts, scan, lastPending);
    },
  };
}

export interface Follow<T extends ScanPageLike> {
  /** The view's call; with a cursor, its next page. */
  page(cursor?: string): Promise<T>;
  /** Before the first page is merged: whether the panel will follow it as a scan. */
  following?(yes: boolean): void;
  /** Merges a page's rows into the view. */
  merge(res: T): void;
  /** The view's words for what was kept once the scan ended ("312 entries of 4 hosts"). */
  kept(): string;
}

/** The panel that heads the view while its call goes on as a scan. */
function renderPanel(mount: HTMLElement, progress: ScanProgress, cursor: string): HTMLElement {
  const ended = h('p', { id: 'scan-ended', role: 'status', hidden: true });
  mount.replaceChildren(
    h(
      'section',
      { class: 'card scan', id: 'scan-panel', 'aria-labelledby': 'scan-title' },
      h(
        'div',
        { class: 'row' },
        h('h2', { id: 'scan-title' }, 'This call outlived its deadline: it goes on as a scan'),
        h('span', { class: 'grow' }),
        progress.cancel,
        h('a', { href: query({ view: 'scans', cursor }), id: 'scan-open' }, 'Open in Scans'),
      ),
      h('p', { class: 'muted' }, 'New rows are added below as hosts answer; each host’s rows come once.'),
      progress.root,
      ended,
    ),
  );
  return ended;
}

/** Where a followed scan stands: its cursor, its latest ScanInfo, whether Cancel was pressed. */
interface Followed {
  cursor: string | undefined;
  latest: ScanJson;
  cancelled: boolean;
}

/** Cancel ends the scan's walks (ScanStatus cancel=true); a refusal is said under the panel. */
function bindCancel(ctx: ViewContext, progress: ScanProgress, ended: HTMLElement, followed: Followed): void {
  progress.cancel.addEventListener('click', () => {
    const cursor = followed.cursor;
    if (!cursor) return;
    progress.cancel.disabled = true;
    followed.cancelled = true;
    void ctx.call<{ scan: ScanJson }>('ScanStatus', { cursor, cancel: true }).then(
      (r) => progress.show(r.scan),
      (err: Error) => {
        followed.cancelled = false;
        progress.cancel.disabled = false;
        ended.hidden = false;
        ended.textContent = `Cancel failed: ${err.message}`;
      },
    );
  });
}

/** ScanStatus while a page waits on the gateway (a page returns when hosts answer, or at its deadline). */
function pollStatus(ctx: ViewContext, progress: ScanProgress, followed: Followed): () => void {
  const timer = setInterval(() => {
    const cursor = followed.cursor;
    if (!cursor || followed.latest.state !== 'running') return;
    ctx.call<{ scan: ScanJson }>('ScanStatus', { cursor }).then(
      (r) => {
        if (r.scan.state && followed.latest.state === 'running') progress.show(r.scan);
      },
      () => undefined, // the next page says what went wrong
    );
  }, STATUS_EVERY_MS);
  const stop = () => clearInterval(timer);
  ctx.signal.addEventListener('abort', stop);
  return stop;
}

/**
 * A view's call: its first page merged and, when that page is a page of a scan, the panel in
 * `mount` and the scan followed to its end (or until the view is left: the scan goes on, the
 * Scans view still shows it). Every view that can start a scan opens with this.
 */
export async function callAndFollow<T extends ScanPageLike>(
  ctx: ViewContext,
  mount: HTMLElement,
  view: string,
  follow: Follow<T>,
): Promise<void> {
  const first = await follow.page();
  const scan = first.scan;
  follow.following?.(!!scan && !!first.nextCursor);
  follow.merge(first);
  if (!scan || !first.nextCursor) return;
  const followed: Followed = { cursor: first.nextCursor, latest: scan, cancelled: false };
  keep({ id: scan.id, cursor: first.nextCursor, view, href: location.search, started: Date.now() });
  const progress = scanProgress('scan');
  const ended = renderPanel(mount, progress, first.nextCursor);
  const pendingOf = (res: ScanPageLike) => (res.hosts ?? []).filter((s) => s.status === 'pending').map((s) => s.host);
  progress.show(scan, pendingOf(first));
  bindCancel(ctx, progress, ended, followed);
  const stop = pollStatus(ctx, progress, followed);
  try {
    while (followed.cursor && !ctx.signal.aborted) {
      const res = await follow.page(followed.cursor);
      if (ctx.signal.aborted) return;
      follow.merge(res);
      if (res.scan) {
        followed.latest = res.scan;
        progress.show(res.scan, pendingOf(res));
      }
      followed.cursor = res.nextCursor || undefined;
    }
  } finally {
    stop();
  }
  ended.hidden = false;
  const state = followed.latest.state ?? 'complete';
  ended.dataset.state = state;
  ended.textContent =
    state === 'cancelled' || followed.cancelled
      ? `Cancelled: every walk still running was stopped. Kept: ${follow.kept()}.`
      : `Complete: ${follow.kept()}.`;
}
