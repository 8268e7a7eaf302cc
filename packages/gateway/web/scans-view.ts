// Scans: a walk over a selector, watched as it runs: hosts done of total, entries seen, each
// host's state and outcome, and Cancel (the stream is closed; the gateway aborts every host's
// walk). It runs on Fleet.Walk, the streaming RPC that exists today; a scan that outlives the
// page (issue 21's scan handle) is not in the Fleet API yet. State: ?view=scans&host&path&depth.
import type { JsonStatus } from './browse-view.js';
import type { ViewContext } from './context.js';
import { fill, h } from './dom.js';
import type { HostStatusView } from './hosts-view.js';

interface WalkEvent {
  host?: { host: string; state: string; status?: JsonStatus };
  rows?: { host: string; rows?: { entry?: unknown }[] };
  summary?: { hosts?: JsonStatus[]; entries?: string };
}

export async function scansView(section: HTMLElement, ctx: ViewContext): Promise<void> {
  const p = ctx.params;
  const host = p.get('host') ?? 'all';
  const path = p.get('path') ?? '/';
  const depth = Math.min(10, Math.max(1, Number(p.get('depth') ?? 3) || 3));
  const state = { view: 'scans', host, path, depth: String(depth) };
  const hostInput = h('input', { id: 'scan-host', value: host, size: 22, spellcheck: 'false' });
  const pathInput = h('input', { id: 'scan-path', value: path, size: 40, spellcheck: 'false' });
  const depthInput = h('input', { id: 'scan-depth', type: 'number', min: 1, max: 10, value: depth });
  const start = h('button', { type: 'submit', class: 'primary', id: 'scan-start' }, 'Start scan');
  const cancel = h('button', { type: 'button', id: 'scan-cancel', disabled: true }, 'Cancel');
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
  const status = h('p', { id: 'scan-status', role: 'status' }, 'Not started.');
  const body = h('tbody');
  fill(
    section,
    h('h1', { id: 'h-scans' }, 'Fleet scans'),
    h(
      'form',
      {
        class: 'bar',
        onsubmit: (ev: Event) => {
          ev.preventDefault();
          ctx.navigate(
            {
              ...state,
              host: hostInput.value.trim() || 'all',
              path: pathInput.value.trim() || '/',
              depth: depthInput.value,
              run: '1',
            },
            true,
          );
        },
      },
      h('label', { for: 'scan-host' }, 'Hosts', hostInput),
      h('label', { for: 'scan-path' }, 'Path', pathInput),
      h('label', { for: 'scan-depth' }, 'Levels', depthInput),
      start,
      cancel,
    ),
    meter,
    status,
    h(
      'table',
      { id: 'scan-hosts' },
      h(
        'thead',
        {},
        h('tr', {}, ...['host', 'state', 'entries', 'time', 'message'].map((c) => h('th', { scope: 'col' }, c))),
      ),
      body,
    ),
    h(
      'p',
      { class: 'muted' },
      'A scan here lasts as long as this page watches it (Fleet.Walk); closing the page or Cancel stops every host\u2019s walk.',
    ),
  );
  if (p.get('run') !== '1') return;

  const hosts = (await ctx.api<HostStatusView>('GET', `hosts?host=${encodeURIComponent(host)}`)).hosts.map(
    (r) => r.host,
  );
  const rows = new Map<
    string,
    { state: HTMLElement; entries: HTMLElement; time: HTMLElement; message: HTMLElement; n: number }
  >();
  for (const name of hosts) {
    const cells = {
      state: h('td', {}, 'queued'),
      entries: h('td', { class: 'num' }, '0'),
      time: h('td', { class: 'num' }, ''),
      message: h('td', {}),
      n: 0,
    };
    rows.set(name, cells);
    body.append(
      h(
        'tr',
        { 'data-host': name },
        h('td', { class: 'name' }, name),
        cells.state,
        cells.entries,
        cells.time,
        cells.message,
      ),
    );
  }
  let done = 0;
  let entries = 0;
  const started = performance.now();
  const show = (words: string) => {
    bar.style.width = `${hosts.length ? (100 * done) / hosts.length : 100}%`;
    meter.setAttribute('aria-valuemax', String(hosts.length));
    meter.setAttribute('aria-valuenow', String(done));
    status.textContent = `${words}: ${done} of ${hosts.length} hosts done, ${entries.toLocaleString('en-US')} entries, ${((performance.now() - started) / 1000).toFixed(1)} s`;
  };
  const ac = new AbortController();
  ctx.signal.addEventListener('abort', () => ac.abort());
  cancel.disabled = false;
  start.disabled = true;
  cancel.addEventListener('click', () => ac.abort());
  const ticker = setInterval(() => show('running'), 500);
  show('running');
  try {
    await ctx.stream<WalkEvent>(
      'Walk',
      { host, path, maxDepth: depth },
      (e) => {
        if (e.host) {
          const r = rows.get(e.host.host);
          if (!r) return;
          if (e.host.state === 'walking') r.state.textContent = 'walking';
          else {
            done++;
            const st = e.host.status;
            r.state.replaceChildren(
              h('span', { class: `badge ${st?.status === 'ok' ? 'ok' : 'bad'}` }, st?.status ?? 'done'),
            );
            r.time.textContent = st?.elapsedMs ? `${st.elapsedMs} ms` : '';
            r.message.textContent = st?.message ?? '';
          }
        }
        if (e.rows) {
          const r = rows.get(e.rows.host);
          const n = (e.rows.rows ?? []).filter((x) => x.entry).length;
          entries += n;
          if (r) {
            r.n += n;
            r.entries.textContent = r.n.toLocaleString('en-US');
          }
        }
      },
      ac.signal,
    );
    show('complete');
  } catch (err) {
    if (!ac.signal.aborted) throw err;
    for (const r of rows.values())
      if (/queued|walking/.test(r.state.textContent ?? ''))
        r.state.replaceChildren(h('span', { class: 'badge unknown' }, 'cancelled'));
    show('cancelled');
  } finally {
    clearInterval(ticker);
    cancel.disabled = true;
    start.disabled = false;
  }
}
