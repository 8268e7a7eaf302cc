// Scans: the fleet scans this tab's Browse, Space and Compare calls started (a call that
// outlived its deadline goes on as a scan, issue 21), each read with ScanStatus as it runs:
// hosts done of total, entries seen, elapsed, time left, failed hosts; Cancel stops its walks.
// A scan outlives the page that started it (until its TTL after the last page or status), so
// it can be watched and cancelled here after leaving that page. State: ?view=scans, or
// ?view=scans&cursor=scan.… for one scan (any of its cursors; the same token's scans only).
import { query, type ViewContext } from './context.js';
import { fill, h } from './dom.js';
import { forget, type KeptScan, keptScans, type ScanJson, STATUS_EVERY_MS, scanProgress } from './scan-panel.js';

const VIEW_WORDS: Record<string, string> = { browse: 'Browse', space: 'Space', compare: 'Compare' };

interface Watched {
  cursor: string;
  running: boolean;
  refresh(): Promise<void>;
}

function watch(ctx: ViewContext, cursor: string, kept: KeptScan | undefined, id: string): [HTMLElement, Watched] {
  const progress = scanProgress(`scan-${id}`);
  const gone = h('p', { class: 'banner bad', hidden: true, 'data-gone': '' });
  const from = kept ? new URLSearchParams(kept.href) : undefined;
  const title = from
    ? `${VIEW_WORDS[kept?.view ?? ''] ?? kept?.view} of ${from.get('host') ?? 'all'}:${from.get('path') ?? '/'}`
    : `Scan ${id}`;
  const card = h(
    'section',
    { class: 'card scan', 'data-scan': id, 'aria-labelledby': `scan-${id}-title` },
    h(
      'div',
      { class: 'row' },
      h('h2', { id: `scan-${id}-title` }, title),
      kept ? h('span', { class: 'muted' }, `started ${new Date(kept.started).toLocaleTimeString('en-GB')}`) : undefined,
      h('span', { class: 'grow' }),
      progress.cancel,
      h(
        'a',
        {
          href: query({ view: 'scans', cursor }),
          'data-link': '',
          title: 'This scan alone (a link to share or reload)',
        },
        'Link to this scan',
      ),
      kept
        ? h(
            'a',
            { href: kept.href, title: 'The same target again: a new call (rows already shown are not kept)' },
            `Open ${VIEW_WORDS[kept.view] ?? kept.view}`,
          )
        : undefined,
    ),
    progress.root,
    gone,
  );
  const w: Watched = {
    cursor,
    running: true,
    async refresh() {
      try {
        const r = await ctx.call<{ scan: ScanJson }>('ScanStatus', { cursor });
        progress.show(r.scan);
        w.running = (r.scan.state ?? 'running') === 'running';
      } catch (err) {
        if (ctx.signal.aborted) return;
        // Said once: the refusal (a failed request in the console too) is not asked again.
        forget(id);
        w.running = false;
        progress.cancel.disabled = true;
        gone.hidden = false;
        gone.textContent = `Not available: ${(err as Error).message}`;
      }
    },
  };
  progress.cancel.addEventListener('click', () => {
    progress.cancel.disabled = true;
    void ctx.call<{ scan: ScanJson }>('ScanStatus', { cursor, cancel: true }).then(
      (r) => {
        progress.show(r.scan);
        w.running = false;
      },
      (err: Error) => {
        progress.cancel.disabled = false;
        gone.hidden = false;
        gone.textContent = `Cancel failed: ${err.message}`;
      },
    );
  });
  return [card, w];
}

export async function scansView(section: HTMLElement, ctx: ViewContext): Promise<void> {
  const one = ctx.params.get('cursor') ?? '';
  const kept = keptScans();
  const idOf = (c: string) => /^scan\.([0-9a-f]+)\./.exec(c)?.[1] ?? 'unknown';
  const shown: [string, KeptScan | undefined][] = one
    ? [[one, kept.find((k) => k.id === idOf(one))]]
    : kept.map((k) => [k.cursor, k]);
  const list = h('div', { class: 'scans', id: 'scans' });
  fill(
    section,
    h('h1', { id: 'h-scans' }, 'Fleet scans'),
    h(
      'p',
      { class: 'muted' },
      'A Browse, Space or Compare call that outlives its deadline goes on as a scan: its page follows it while open, and it is listed here. ',
      one ? h('a', { href: query({ view: 'scans' }) }, 'All scans of this tab') : undefined,
    ),
    list,
  );
  if (shown.length === 0) {
    list.append(
      h(
        'p',
        { class: 'banner info', id: 'no-scans' },
        'No scans from this tab yet: every call so far answered within its deadline.',
      ),
    );
    return;
  }
  const watched: Watched[] = [];
  for (const [cursor, k] of shown) {
    const [card, w] = watch(ctx, cursor, k, idOf(cursor));
    list.append(card);
    watched.push(w);
  }
  await Promise.all(watched.map((w) => w.refresh()));
  // Read the running ones until the view is left.
  const timer = setInterval(() => {
    for (const w of watched) if (w.running) void w.refresh();
  }, STATUS_EVERY_MS);
  ctx.signal.addEventListener('abort', () => clearInterval(timer));
}
