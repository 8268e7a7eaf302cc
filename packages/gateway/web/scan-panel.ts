// A Browse, Space or Compare call that outlives its deadline answers a page of a scan (issue
// 21): what arrived, the rest as `pending` hosts, and a next_cursor that continues it. The
// panel shows where the scan stands (hosts done of total, entries seen, elapsed, the time
// left, pending and failed hosts), follows next_cursor page after page (each page waits on
// the gateway for hosts to answer; the view merges its rows), reads ScanStatus in between,
// and Cancel ends the scan's walks (ScanStatus cancel=true), then takes what was kept. The
// scans a tab started are kept in its sessionStorage for the Scans view.
import type { JsonStatus } from './browse-view.js';
import { query, type ViewContext } from './context.js';
import { h } from './dom.js';

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

/** The progress block (shared with the Scans view): bar, figures, pending and failed hosts. */
export function scanProgress(idPrefix: string): ScanProgress {
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
  const state = h('span', { class: 'badge unknown', 'data-state': '', 'data-k': 'state' }, 'running');
  const status = h('p', { class: 'scan-line', role: 'status', id: `${idPrefix}-status` });
  const dd = (k: string) => h('dd', { 'data-k': k });
  const fields = {
    done: dd('done'),
    entries: dd('entries'),
    elapsed: dd('elapsed'),
    left: dd('left'),
  };
  const pendingLine = h('p', { class: 'muted', 'data-k': 'pending' });
  const failedLine = h('p', { class: 'muted', 'data-k': 'failed' });
  const cancel = h('button', { type: 'button', class: 'danger', id: `${idPrefix}-cancel` }, 'Cancel scan');
  const root = h(
    'div',
    { class: 'scan-progress' },
    h('div', { class: 'row' }, state, status),
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
    pendingLine,
    failedLine,
  );
  let lastPending: string[] = [];
  return {
    root,
    cancel,
    show(scan, pending) {
      if (pending) lastPending = pending;
      const done = scan.hostsDone ?? 0;
      const total = scan.hostsTotal ?? 0;
      const word = scan.state ?? 'running';
      state.textContent = word;
      state.dataset.state = word;
      state.className = `badge ${word === 'complete' ? 'ok' : word === 'cancelled' ? 'bad' : 'unknown'}`;
      bar.style.width = `${total ? (100 * done) / total : 100}%`;
      meter.setAttribute('aria-valuemax', String(total));
      meter.setAttribute('aria-valuenow', String(done));
      fields.done.textContent = `${done} of ${total}`;
      fields.entries.textContent = count(scan.entriesSeen);
      fields.elapsed.textContent = seconds(scan.elapsedMs);
      fields.left.textContent =
        word !== 'running'
          ? '—'
          : scan.estimateMs !== undefined
            ? `about ${seconds(scan.estimateMs)}`
            : 'not known yet';
      status.textContent = `Scan ${scan.id} ${word === 'running' ? 'running' : word}: ${done} of ${total} hosts done, ${count(scan.entriesSeen)} entries seen in ${seconds(scan.elapsedMs)}`;
      // The names are the last page's pending hosts: a host done since (or one a whole-answer
      // tool such as a diff holds back until every host is done) is named until the next page.
      const left = Math.max(0, total - done);
      const names = word === 'running' ? lastPending : [];
      const list = `${names.slice(0, 12).join(', ')}${names.length > 12 ? `, … ${names.length - 12} more` : ''}`;
      pendingLine.textContent =
        word !== 'running' || left === 0
          ? ''
          : names.length === left
            ? `Pending (${left}): ${list}`
            : `Pending: ${left} host${left === 1 ? '' : 's'}${names.length ? ` (not on a page yet: ${list})` : ''}`;
      const failed = scan.failed ?? [];
      failedLine.textContent = failed.length
        ? `Failed (${scan.failedCount ?? failed.length}): ${failed.slice(0, 12).join(', ')}${(scan.failedCount ?? failed.length) > 12 ? ', …' : ''}`
        : '';
      cancel.disabled = word !== 'running';
    },
  };
}

export interface Follow<T extends ScanPageLike> {
  /** The view's next page: the same call with this cursor. */
  page(cursor: string): Promise<T>;
  /** Merges a page's rows into the view. */
  merge(res: T): void;
  /** The view's words for what was kept once the scan ended ("312 entries of 4 hosts"). */
  kept(): string;
}

/**
 * When `first` is a page of a scan: the panel in `mount`, and the scan followed to its end
 * (or until the view is left: the scan goes on, the Scans view still shows it).
 */
export async function followScan<T extends ScanPageLike>(
  ctx: ViewContext,
  mount: HTMLElement,
  first: T,
  view: string,
  f: Follow<T>,
): Promise<void> {
  const scan = first.scan;
  let cursor = first.nextCursor;
  if (!scan || !cursor) return;
  keep({ id: scan.id, cursor, view, href: location.search, started: Date.now() });
  const progress = scanProgress('scan');
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
  const pendingOf = (res: ScanPageLike) => (res.hosts ?? []).filter((s) => s.status === 'pending').map((s) => s.host);
  progress.show(scan, pendingOf(first));
  let latest = scan;
  let cancelled = false;
  progress.cancel.addEventListener('click', () => {
    if (!cursor) return;
    progress.cancel.disabled = true;
    cancelled = true;
    void ctx.call<{ scan: ScanJson }>('ScanStatus', { cursor, cancel: true }).then(
      (r) => progress.show(r.scan),
      (err: Error) => {
        cancelled = false;
        progress.cancel.disabled = false;
        ended.hidden = false;
        ended.textContent = `Cancel failed: ${err.message}`;
      },
    );
  });
  // ScanStatus while a page waits on the gateway (a page returns when hosts answer, or at its deadline).
  const timer = setInterval(() => {
    if (!cursor || latest.state !== 'running') return;
    ctx.call<{ scan: ScanJson }>('ScanStatus', { cursor }).then(
      (r) => {
        if (r.scan.state && latest.state === 'running') progress.show(r.scan);
      },
      () => undefined, // the next page says what went wrong
    );
  }, STATUS_EVERY_MS);
  ctx.signal.addEventListener('abort', () => clearInterval(timer));
  try {
    while (cursor && !ctx.signal.aborted) {
      const res = await f.page(cursor);
      if (ctx.signal.aborted) return;
      f.merge(res);
      if (res.scan) {
        latest = res.scan;
        progress.show(res.scan, pendingOf(res));
      }
      cursor = res.nextCursor || undefined;
    }
  } finally {
    clearInterval(timer);
  }
  ended.hidden = false;
  const state = latest.state ?? 'complete';
  ended.dataset.state = state;
  ended.textContent =
    state === 'cancelled' || cancelled
      ? `Cancelled: every walk still running was stopped. Kept: ${f.kept()}.`
      : `Complete: ${f.kept()}.`;
}
