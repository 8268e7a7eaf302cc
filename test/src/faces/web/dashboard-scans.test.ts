// Long work in the dashboard (issue 23 ask 5): a Browse, Space or Compare call over slow hosts
// outlives its deadline and goes on as a fleet scan (issue 21). In a real headless Chromium,
// against the real `fleetls serve --http` and slow agents (one process of real agent handlers,
// each host answering after its own delay or never: helpers/slow-agents.ts), the page shows
// the scan (hosts done of total, entries seen, elapsed, time left, pending hosts), follows its
// cursor as hosts answer (each host's rows once), and Cancel ends every walk still running
// (the agents see their calls end); the view says cancelled and what was kept. The Scans view
// lists the tab's scans, follows one after its page was left, cancels it, and keeps its state
// in the URL. Each page passes axe-core with no serious violation and logs no console error.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '@fleetls/testkit';
import { type Chromium, openChromium } from '../../helpers/chromium.js';
import { type GatewayProcess, startGateway } from '../../helpers/gateway-process.js';
import { type SlowAgents, startSlowAgents } from '../../helpers/slow-agents.js';

// The page's globals, inside page.evaluate callbacks (this package compiles without the DOM lib).
declare const document: {
  querySelector(sel: string): { getAttribute(name: string): string | null; textContent: string | null } | null;
  activeElement: { id: string } | null;
};
declare const sessionStorage: { setItem(key: string, value: string): void };

const TOKEN = 'dashboard-scans-token-0123456789';
/** Host name → ms before it answers (null: never, until its walk is cancelled). */
const HOSTS: [string, number | null][] = [
  ['fast-1', 0],
  ['fast-2', 0],
  ['slow-a', 3000],
  ['slow-b', 6000],
  ['never-1', null],
  ['never-2', null],
];
/** A call's deadline: it waits 1 s for its hosts (the gateway keeps 2 s to present), then answers a scan page. */
const CALL_DEADLINE_MS = 3000;
const FILES = ['a.log', 'b.log', 'new\nline.txt', 'sub'];

describe('dashboard: a call past its deadline is a scan, followed and cancelled (Chromium, slow agents)', () => {
  let work: string;
  let data: string;
  let agents: SlowAgents;
  let gw: GatewayProcess;
  let base: string;
  let browser: Chromium;

  before(async () => {
    work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-dashboard-scans-')));
    data = path.join(work, 'data');
    fs.mkdirSync(path.join(data, 'sub'), { recursive: true });
    fs.writeFileSync(path.join(data, 'a.log'), 'a'.repeat(3000));
    fs.writeFileSync(path.join(data, 'b.log'), 'b'.repeat(10));
    fs.writeFileSync(path.join(data, 'new\nline.txt'), 'n');
    fs.writeFileSync(path.join(data, 'sub/c.bin'), Buffer.alloc(50_000));
    agents = await startSlowAgents(
      data,
      HOSTS.map(([, d]) => d),
      path.join(work, 'agents.json'),
    );
    const inventory = path.join(work, 'fleetls.yaml');
    fs.writeFileSync(
      inventory,
      [
        'hosts:',
        ...HOSTS.map(([name], i) => `  ${name}: { agent: "${agents.addresses[i]}" }`),
        'agent_tls: insecure',
        // A scan's host waits long enough that only Cancel ends the never-answering hosts.
        `defaults: { connect_timeout_ms: 5000, call_deadline_ms: ${CALL_DEADLINE_MS}, scan_host_deadline_ms: 120000 }`,
        '',
      ].join('\n'),
    );
    gw = startGateway(['--http', '127.0.0.1:0'], { FLEETLS_INVENTORY: inventory, FLEETLS_TOKEN: TOKEN });
    base = await gw.waitFor(/dashboard at (http:\/\/\S+)/);
    browser = await openChromium();
    // Signed in as an operator would be (the sign-in states are dashboard.test.ts's).
    await browser.page.addInitScript((tok) => sessionStorage.setItem('fleetls-token', tok), TOKEN);
  });
  after(async () => {
    await browser?.close();
    await gw?.stop();
    await agents?.stop();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  const done = () =>
    browser.page.evaluate(() =>
      Number(document.querySelector('#scan-panel [role=progressbar]')?.getAttribute('aria-valuenow') ?? -1),
    );
  const waitDone = (n: number, sel = '#scan-panel') =>
    browser.page.waitForFunction(
      ([k, s]) => Number(document.querySelector(`${s} [role=progressbar]`)?.getAttribute('aria-valuenow')) >= Number(k),
      [String(n), sel],
      { timeout: 120_000 },
    );
  /** A figure of a scan's progress block (`state`, `done`, `entries`, `elapsed`, `left`, `pending`). */
  const field = async (k: string, sel = '#scan-panel') =>
    ((await browser.page.locator(`${sel} [data-k="${k}"]`).first().textContent()) ?? '').trim();
  /** Every walk the slow agents were asked for has ended (answered or cancelled). */
  const walksEnd = () =>
    waitFor(() => agents.open() === 0, { timeoutMs: 60_000, everyMs: 100, what: 'every agent call to end' });

  it('browse: shows the scan, merges each host’s rows once as it answers, Cancel ends the walks and says what was kept', async () => {
    const { page } = browser;
    await page.goto(`${base}?view=browse&host=all&path=${encodeURIComponent(data)}`);
    await page.locator('#scan-panel').waitFor();
    // The first page came at the call's deadline (1 s of waiting): slow-b (6 s) cannot be in it.
    const first = await done();
    assert.ok(first >= 0 && first < 4, `hosts done on the first page: ${first}`);
    assert.match(await field('done'), /^\d of 6$/);
    assert.match(await field('entries'), /^[\d,]+$/);
    assert.match(await field('elapsed'), /^\d+\.\d s$/);
    assert.match(await field('left'), /^(about \d+\.\d s|not known yet)$/);
    assert.match(await field('pending'), /^Pending.*never-1, never-2\)?$/);
    assert.match(
      (await page.locator('#listing tr[data-host-status="pending"]').allInnerTexts()).join('\n'),
      /never-1: pending/,
    );

    // The view follows the scan: slow-a, then slow-b, arrive without a click.
    await waitDone(4);
    // A name is one row with the hosts it is on (issue 40, item 10): each host's rows once is
    // each host once in every name's row.
    await page.waitForFunction(
      () =>
        document.querySelector('#listing tbody tr[data-name="sub"]')?.getAttribute('data-hosts')?.split(',').length ===
        4,
    );
    const rows = await page
      .locator('#listing tbody tr[data-name]')
      .evaluateAll((rs) => rs.map((r) => [r.getAttribute('data-name') ?? '', r.getAttribute('data-hosts') ?? '']));
    for (const f of FILES) {
      const name = f.replace('\n', '\\n');
      const mine = rows.filter(([n]) => n === name);
      assert.equal(mine.length, 1, `${name} once in ${rows.join(' ')}`);
      assert.deepEqual(mine[0]?.[1].split(',').toSorted(), ['fast-1', 'fast-2', 'slow-a', 'slow-b'], name);
    }
    assert.equal(rows.length, FILES.length, 'the never-answering hosts have no rows');
    assert.equal(await field('state'), 'running');
    assert.equal(await field('done'), '4 of 6');
    assert.equal(await field('pending'), 'Pending (2): never-1, never-2');
    // The agents' lines come through a pipe: their count settles a moment after the rows are shown.
    await waitFor(() => agents.open() === 2, {
      timeoutMs: 30_000,
      what: 'the walks of the two never-answering hosts, and only those, open',
    });
    await browser.audit('browse scan running');
    await browser.shot('scan');

    // Keyboard: Tab reaches Cancel (and Enter presses it).
    await page.focus('#browse-host');
    let reached = false;
    for (let i = 0; i < 20 && !reached; i++) {
      await page.keyboard.press('Tab');
      reached = await page.evaluate(() => document.activeElement?.id === 'scan-cancel');
    }
    assert.ok(reached, 'Cancel is reachable with Tab');
    await page.keyboard.press('Enter');
    await page.locator('#scan-ended[data-state="cancelled"]').waitFor({ timeout: 60_000 });
    await walksEnd();
    assert.match(
      (await page.locator('#scan-ended').textContent()) ?? '',
      /^Cancelled: every walk still running was stopped\. Kept: 16 entries of 4 hosts\.$/,
    );
    assert.equal(await page.locator('#scan-panel [data-state]').first().textContent(), 'cancelled');
    const stopped = (await page.locator('#listing tr.failed').allInnerTexts()).join('\n');
    assert.match(stopped, /never-1: error — .*cancel/);
    assert.match(stopped, /never-2: error — .*cancel/);
    assert.equal(await page.locator('#listing tbody tr[data-name]').count(), FILES.length, 'what was kept stays');
    assert.equal(await page.isDisabled('#scan-cancel'), true);
    assert.deepEqual(browser.errors, []);
  });

  it('space: the treemap grows as hosts answer; left for the Scans view, which follows the scan and cancels it', async () => {
    const { page } = browser;
    await page.goto(`${base}?view=space&host=all&path=${encodeURIComponent(data)}&depth=1`);
    await page.locator('#scan-panel').waitFor();
    await waitDone(2);
    await page
      .locator('#space-total')
      .filter({ hasText: /[2-6] hosts, as du -sb/ })
      .waitFor();
    await page.locator('#treemap g.node[data-path="sub"]').waitFor();
    assert.equal(await page.locator('#space-notices [data-ranking]').count(), 1, 'says the sizes are of hosts so far');

    // Leaving the page does not end the scan: the Scans view lists it (and the cancelled browse scan).
    // Keyboard: g then r opens Scans.
    await page.focus('#main');
    await page.keyboard.press('g');
    await page.keyboard.press('r');
    await page.waitForURL((u) => u.searchParams.get('view') === 'scans');
    await page.locator('#scans [data-scan]').nth(1).waitFor();
    const cards = page.locator('#scans [data-scan]');
    const card = '#scans [data-scan]';
    assert.equal(await cards.nth(0).locator('h2').textContent(), `Space of all:${data}`);
    assert.equal(await cards.nth(1).locator('h2').textContent(), `Browse of all:${data}`);
    // A card's figures come from its first ScanStatus, a moment after the card is drawn.
    await page.locator(`${card}:nth-child(2) [data-k="state"]`).filter({ hasText: 'cancelled' }).waitFor();
    await waitDone(4, `${card}:first-child`);
    assert.equal(await field('done', `${card}:first-child`), '4 of 6');
    await browser.audit('scans view');
    await browser.shot('scans');
    await cards.nth(0).locator('button.danger').click();
    await cards.nth(0).locator('[data-state="cancelled"]').waitFor();
    await walksEnd();

    // The URL names one scan (any of its cursors): reloaded, it shows that scan as it stands.
    const id = await cards.nth(0).getAttribute('data-scan');
    await cards.nth(0).locator('a[data-link]').click();
    await page.waitForURL((u) => (u.searchParams.get('cursor') ?? '').startsWith(`scan.${id}.`));
    await page.reload();
    await page.locator('#scans [data-scan] [data-state="cancelled"]').waitFor();
    assert.equal(await page.locator('#scans [data-scan]').count(), 1);
    assert.equal(await page.getAttribute('#scans [data-scan]', 'data-scan'), id);
    assert.deepEqual(browser.errors, []);

    // A scan the gateway does not hold (expired, or another gateway's) says so, and why.
    await page.goto(`${base}?view=scans&cursor=scan.0123456789abcdef.0.0`);
    const gone = page.locator('#scans [data-gone]');
    await gone.waitFor();
    assert.match(
      (await gone.textContent()) ?? '',
      /^Not available: cursor names scan 0123456789abcdef, which this gateway does not hold/,
    );
    assert.equal(await page.isDisabled('#scans button.danger'), true);
    // The refusal is a 400, which Chromium logs as a failed load: that one, and nothing else.
    assert.deepEqual(
      (browser.errors as string[]).map((e) => e.replace(/ @ .*/, '')),
      ['Failed to load resource: the server responded with a status of 400 (Bad Request)'],
    );
    browser.errors.length = 0;
  });

  it('compare: waits for every host, and cancelled compares the hosts that answered; the dark theme passes axe', async () => {
    const { page } = browser;
    await page.goto(`${base}?view=compare&host=all&path=${encodeURIComponent(data)}&depth=1`);
    await page.locator('#scan-panel').waitFor();
    assert.match((await page.locator('#diff-summary').textContent()) ?? '', /^Waiting for every host/);
    await waitDone(2);
    // A diff holds every host back until all are done: the names are of no page yet.
    await page
      .locator('#scan-panel [data-k="pending"]')
      .filter({
        hasText: /^Pending: [2-4] hosts \(not on a page yet: fast-1, fast-2, slow-a, slow-b, never-1, never-2\)$/,
      })
      .waitFor();
    await page.click('#theme');
    await page.click('#theme');
    assert.equal(await page.getAttribute('html', 'data-theme'), 'dark');
    await browser.audit('compare scan, dark');
    await browser.shot('scan-dark');
    await page.click('#scan-cancel');
    await page.locator('#scan-ended[data-state="cancelled"]').waitFor({ timeout: 60_000 });
    await walksEnd();
    const a = (await page.locator('#diff-groups [data-group="A"]').textContent()) ?? '';
    assert.match(a, /^A \(baseline\): .*fast-1, fast-2/, 'every host that answered has the same tree');
    const notices = (await page.locator('#view-compare').textContent()) ?? '';
    assert.match(notices, /never-1: error — .*\(not compared\)/);
    assert.match(notices, /never-2: error — .*\(not compared\)/);
    await page.click('#theme');
    assert.deepEqual(browser.errors, []);
  });
});
