// The web dashboard in a real headless Chromium (Debian's, driven by playwright-core; no
// browser is downloaded), served by `fleetls serve --http` with a bearer token in front of
// real agents: web-1 and web-2 serve different trees at the same path (--path-rootfs), web-2
// as nobody (an unreadable directory makes its sizes lower bounds), `dead` refuses
// connections and `slow` accepts them and never answers. Each view is driven as an operator
// would (sign in, filter hosts, descend three levels and back, sort by size, drill into the
// treemap, open a diff; scans are dashboard-scans.test.ts's); every page passes axe-core with
// no serious or critical violation and logs no console error. Screenshots go to test/artifacts/.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http2 from 'node:http2';
import type * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeTree, range, type TreeNode, type TreeSpec } from '@fleetls/testkit';
import type { BrowserContext, Page } from 'playwright-core';
import { type AgentProcess, startAgent } from '../../helpers/agent-process.js';
import { agentTlsArgs, makePki } from '../../helpers/certs.js';
import { type Chromium, openChromium } from '../../helpers/chromium.js';
import { type GatewayProcess, startGateway } from '../../helpers/gateway-process.js';

// The page's globals, inside page.evaluate callbacks (this package compiles without the DOM lib).
interface PageElement {
  getAttribute(name: string): string | null;
  querySelector(sel: string): PageElement | null;
  textContent: string | null;
}
declare const document: {
  querySelector(sel: string): PageElement | null;
  querySelectorAll(sel: string): ArrayLike<PageElement> & Iterable<PageElement>;
};
declare const sessionStorage: { setItem(key: string, value: string): void };

const TOKEN = 'dashboard-token-0123456789abcdef';
/** More rows than one host sends per page (with --max-answer-bytes 16384), so the listing pages. */
const WIDE = 2100;
const NOBODY = 65534;

const bytes = (size: number) => 'a'.repeat(size);

/** The same layout on both hosts, with the differences the Compare view must show. */
function dashboardTree(second: boolean): TreeSpec {
  return [
    ['data/a.log', bytes(second ? 4000 : 3000)],
    second ? ['data/only-on-2.txt', bytes(10)] : ['data/sub/deep.log', bytes(70_000)],
    ...range(
      150,
      (i) => `data/big/f${String(i).padStart(3, '0')}`,
      (i) => bytes(1000 + i),
    ),
    ['data/deep/l1/l2/l3/bottom.txt', bytes(123)],
    ['data/media/video.bin', bytes(second ? 300_000 : 200_000)],
    ['data/new\nline.txt', bytes(5)],
    ...(second
      ? []
      : range(
          WIDE,
          (i) => `data/wide/w${String(i).padStart(4, '0')}`,
          () => bytes(1),
        )),
    // Unreadable to web-2's agent (it runs as nobody): its size there is a lower bound.
    ...(second
      ? ([
          ['data/secret/hidden.bin', bytes(50_000)],
          ['data/secret', { dir: true, mode: 0o700 }],
        ] satisfies [string, TreeNode][])
      : []),
  ];
}

describe('web dashboard in headless Chromium', () => {
  let root: string;
  let agents: AgentProcess[];
  let slow: http2.Http2SecureServer;
  const held: http2.ServerHttp2Stream[] = [];
  let gw: GatewayProcess;
  let base: string;
  let port: number;
  let browser: Chromium;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  let watch: Chromium['watch'];
  const shot = (name: string, p: Page = page) => browser.shot(name, p);
  const audit = (what: string, p: Page = page) => browser.audit(what, p);
  const metric = async (name: string): Promise<number> => {
    const text = await (await fetch(`${base}metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    let sum = 0;
    // Hosts that answered ok: the slow host's first probe ends (as a timeout) whenever its 20 s run out.
    for (const line of text.split('\n'))
      if (line.startsWith(name) && line.includes('status="ok"')) sum += Number(line.split(' ').pop());
    return sum;
  };

  before(async () => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-dashboard-')));
    fs.chmodSync(root, 0o755);
    const h1 = path.join(root, 'h1');
    const h2 = path.join(root, 'h2');
    makeTree(h1, dashboardTree(false));
    makeTree(h2, dashboardTree(true));
    // mTLS, as agents are deployed: the host check reports each certificate's days to expiry.
    fs.mkdirSync(path.join(root, 'pki'));
    const pki = makePki(path.join(root, 'pki'), ['127.0.0.1']);
    // web-2's agent runs as nobody and reads its key too (throwaway keys of a test).
    for (const f of fs.readdirSync(path.join(root, 'pki'))) fs.chmodSync(path.join(root, 'pki', f), 0o644);
    const tls = agentTlsArgs(pki);
    agents = await Promise.all([
      startAgent({ allow: ['/data'], tls: true, args: ['--path-rootfs', h1, ...tls] }),
      startAgent({ allow: ['/data'], tls: true, args: ['--path-rootfs', h2, ...tls], uid: NOBODY, gid: NOBODY }),
    ]);
    // An agent address that speaks TLS and HTTP/2 and never answers a call: its walk runs until cancelled.
    slow = http2.createSecureServer({ key: fs.readFileSync(pki.serverKey), cert: fs.readFileSync(pki.serverCert) });
    slow.on('stream', (s) => held.push(s));
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    const slowPort = (slow.address() as net.AddressInfo).port;
    const inventory = path.join(root, 'fleetls.yaml');
    fs.writeFileSync(
      inventory,
      [
        'hosts:',
        `  web-1: { agent: "${agents[0].address}", labels: { env: prod } }`,
        `  web-2: { agent: "${agents[1].address}", labels: { env: staging } }`,
        '  dead: { agent: "127.0.0.1:1" }',
        `  slow: { agent: "127.0.0.1:${slowPort}" }`,
        'groups:',
        '  web: [web-1, web-2]',
        `agent_tls: { ca: "${pki.ca}", cert: "${pki.clientCert}", key: "${pki.clientKey}" }`,
        '',
      ].join('\n'),
    );
    fs.writeFileSync(path.join(root, 'inventory-path'), inventory);
    gw = startGateway(['--http', '127.0.0.1:0', '--max-answer-bytes', '16384'], {
      FLEETLS_INVENTORY: inventory,
      FLEETLS_TOKEN: TOKEN,
    });
    base = await gw.waitFor(/dashboard at (http:\/\/\S+)/);
    port = Number(new URL(base).port);
    browser = await openChromium();
    ({ context, page, errors, watch } = browser);
  });
  after(async () => {
    await browser?.close();
    await gw?.stop();
    await Promise.all((agents ?? []).map((a) => a.stop()));
    for (const s of held) s.destroy();
    await new Promise((r) => (slow ? slow.close(r) : r(undefined)));
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  const loginState = async () => {
    const el = page.locator('#login-state');
    await el.waitFor({ state: 'visible' });
    return { kind: await el.getAttribute('data-kind'), text: (await el.textContent()) ?? '' };
  };
  /** A refused token is a 401 by design; Chromium logs each as a failed resource load. */
  const dropRefusals = () => {
    const rest = errors.filter((e) => !/status of 401/.test(e));
    errors.length = 0;
    errors.push(...rest);
  };

  it('sign-in: says a token is missing, then wrong, then signs in and keeps it in session storage only', async () => {
    const res = await page.goto(base);
    assert.match(
      res?.headers()['content-security-policy'] ?? '',
      /script-src 'self'; style-src 'self'; connect-src 'self'/,
    );
    assert.ok(!(await page.content()).includes(TOKEN), 'the page carries no secret');
    // A favicon at the page's link and where browsers ask whatever the page links (no 404 in the console).
    for (const icon of ['favicon.svg', 'favicon.ico']) {
      const r = await page.request.get(`${base}${icon}`);
      assert.equal(r.status(), 200, icon);
      assert.equal(r.headers()['content-type'], 'image/svg+xml', icon);
    }
    let state = await loginState();
    assert.equal(state.kind, 'missing');
    assert.match(state.text, /requires a bearer token/);
    assert.equal(await page.locator('#login-state.bad').count(), 0, 'a first visit is not shown as an error');
    dropRefusals();
    await audit('sign-in (missing)');
    await shot('login');
    await page.fill('#token', 'not-the-token');
    await page.click('#login button[type=submit]');
    await page.waitForFunction(() => document.querySelector('#login-state')?.getAttribute('data-kind') === 'wrong');
    state = await loginState();
    assert.match(state.text, /refused that token/);
    dropRefusals();
    await shot('login-wrong');
    await page.fill('#token', TOKEN);
    await page.click('#login button[type=submit]');
    await page.locator('#nav').waitFor({ state: 'visible' });
    assert.equal(await page.evaluate('sessionStorage.getItem("fleetls-token")'), TOKEN);
    assert.equal(await page.evaluate('localStorage.getItem("fleetls-token")'), null);
    dropRefusals();
    assert.deepEqual(errors, []);
  });

  it('hosts: status with check time and latency, filtered by glob, label and group; the checks are the gateway’s, not per tab', async () => {
    await page.goto(`${base}?view=hosts`);
    // The gateway's first probe lands host by host; the slow host's answer never comes.
    await page.waitForFunction(() => {
      const rows = [...document.querySelectorAll('#hosts tbody tr')];
      const s = (h: string) =>
        rows.find((r) => r.getAttribute('data-host') === h)?.querySelector('.badge')?.textContent;
      return s('web-1') === 'ok' && s('web-2') === 'ok' && s('dead') === 'unreachable';
    });
    const row = (h: string) => page.locator(`#hosts tbody tr[data-host="${h}"] td`);
    const web1 = await row('web-1').allInnerTexts();
    assert.match(web1[2], /^\d+ s ago$/, 'checked time');
    assert.match(web1[3], /^\d+ ms$/, 'latency');
    assert.equal(web1[4], 'agent');
    assert.match(web1[6], /^\d+\.\d+\.\d+/, 'agent version');
    // The test's certificates are valid for a day: shown, and marked as soon to expire.
    assert.match(web1[7], /^[01] days$/, 'certificate days to expiry');
    assert.equal(await page.locator('#hosts tbody tr[data-host="web-1"] td:nth-child(8).lb').count(), 1);
    assert.equal(web1[8], 'env=prod');
    assert.equal(web1[9], '@web');
    assert.match((await row('dead').allInnerTexts())[1], /unreachable/);
    await audit('hosts');
    await shot('hosts');

    const filter = async (q: string) => {
      await page.fill('#host-filter', q);
      await page.press('#host-filter', 'Enter');
      await page.waitForURL((u) => u.searchParams.get('q') === q);
      await page.waitForFunction(
        (n) => document.querySelectorAll('#hosts tbody tr').length === n && !document.querySelector('.badge.unknown'),
        q === '@web' ? 2 : 1,
      );
      return page.locator('#hosts tbody tr').evaluateAll((rs) => rs.map((r) => r.getAttribute('data-host')));
    };
    assert.deepEqual(await filter('label:env=prod'), ['web-1']);
    assert.deepEqual(await filter('@web'), ['web-1', 'web-2']);
    assert.deepEqual(await filter('de*'), ['dead']);
    await page.goBack();
    await page.waitForFunction(() => document.querySelectorAll('#hosts tbody tr').length === 2);
    assert.equal(await page.inputValue('#host-filter'), '@web', 'back restores the filter from the URL');

    // Three more tabs reading the cache for a while probe no host; "Check now" probes each host once
    // (once its last check is older than the 5 s within which a check leaves a host alone).
    const checkedAt = Date.parse(
      (await page.getAttribute('#hosts tbody tr[data-host="web-1"] td:nth-child(3)', 'title')) ?? '',
    );
    const before = await metric('fleetls_gateway_fanout_hosts_total');
    const tabs = await Promise.all([1, 2, 3].map(() => context.newPage()));
    for (const t of tabs) {
      watch(t);
      // sessionStorage is per tab: each tab signs in with the token, as an operator would.
      await t.addInitScript((tok) => sessionStorage.setItem('fleetls-token', tok), TOKEN);
    }
    await Promise.all(tabs.map((t) => t.goto(`${base}?view=hosts&q=%40web`)));
    await Promise.all(tabs.map((t) => t.locator('#hosts tbody tr[data-host="web-2"] .badge.ok').waitFor()));
    await page.waitForTimeout(Math.max(2500, checkedAt + 5500 - Date.now()));
    assert.equal(await metric('fleetls_gateway_fanout_hosts_total'), before, 'reading the cache probes nothing');
    await Promise.all([page, ...tabs].map((t) => t.click('#check-now')));
    await Promise.all(
      [page, ...tabs].map((t) => t.waitForFunction(() => !document.querySelector('#check-now[disabled]'))),
    );
    assert.equal(
      await metric('fleetls_gateway_fanout_hosts_total'),
      before + 2,
      'four tabs clicking "Check now" at once: web-1 and web-2 probed once each',
    );
    await Promise.all(tabs.map((t) => t.close()));
  });

  it('browse: a table of a selector with failed hosts, descends three levels and back, sorts by size, escapes names', async () => {
    await page.goto(`${base}?view=browse&host=${encodeURIComponent('web-1,web-2,dead')}&path=/data`);
    await page.locator('#listing tbody tr[data-name="a.log"]').first().waitFor();
    const failed = await page.locator('#listing tr.failed').allInnerTexts();
    assert.ok(
      failed.some((t) => /^dead: unreachable/.test(t)),
      `a row for the failed host: ${failed}`,
    );
    const names = await page.locator('#listing tbody tr[data-name]').evaluateAll((rs) => rs.map((r) => r.textContent));
    assert.ok(
      names.some((t) => t?.startsWith('web-2only-on-2.txtfile')),
      'host, name, type per row',
    );
    // The name with a newline, as the text answers show it: one row for both hosts.
    assert.equal(await page.locator('#listing tbody tr[data-name="new\\\\nline.txt"]').count(), 1);
    // Issue 40, item 10: a name once, with the hosts it is on (9 names of web-1 and web-2, not 14 rows).
    const rowNames = await page
      .locator('#listing tbody tr[data-name]')
      .evaluateAll((rs) => rs.map((r) => r.getAttribute('data-name') ?? ''));
    assert.deepEqual(rowNames.toSorted(), [
      'a.log',
      'big',
      'deep',
      'media',
      'new\\nline.txt',
      'only-on-2.txt',
      'secret',
      'sub',
      'wide',
    ]);
    const alog = page.locator('#listing tbody tr[data-name="a.log"]');
    assert.equal(await alog.getAttribute('data-hosts'), 'web-1,web-2');
    // 3,000 bytes on web-1, 4,000 on web-2: the size column says so, each host's in its title.
    assert.match((await alog.getAttribute('data-differs')) ?? '', /\bsize\b/);
    assert.match((await alog.locator('td[data-differs="size"]').getAttribute('title')) ?? '', /^web-1: .+\nweb-2: .+$/);
    assert.equal(await alog.locator('td[data-differs="size"]').textContent(), 'differs');
    // Owners as ls -l names them on each host (the test's files are root's), not 0:0.
    await page.waitForFunction(
      () => document.querySelector('#listing tbody tr[data-name="big"] td:nth-child(6)')?.textContent === 'root:root',
    );
    // Opened: a row per host under it, with each host's own size.
    await alog.locator('button[aria-expanded="false"]').click();
    await page.locator('#listing tbody tr.sub[data-sub="a.log"]').nth(1).waitFor();
    const perHost = await page
      .locator('#listing tbody tr.sub[data-sub="a.log"]')
      .evaluateAll((rs) =>
        rs.map(
          (r) => `${r.getAttribute('data-host')} ${r.querySelector('td[data-bytes]')?.getAttribute('data-bytes')}`,
        ),
      );
    assert.deepEqual(perHost.toSorted(), ['web-1 3000', 'web-2 4000']);
    assert.equal(await alog.locator('button').getAttribute('aria-expanded'), 'true');
    await audit('browse');
    await shot('browse');
    await alog.locator('button').click();
    await page.waitForFunction(() => !document.querySelector('#listing tbody tr.sub'));

    await page.goto(`${base}?view=browse&host=web-1&path=/data`);
    for (const dir of ['deep', 'l1', 'l2']) {
      await page.click(`#listing a:text-is("${dir}/")`);
      await page.waitForURL((u) => (u.searchParams.get('path') ?? '').endsWith(`/${dir}`));
      await page.locator('#listing tbody tr[data-name]').first().waitFor();
    }
    assert.equal(new URL(page.url()).searchParams.get('path'), '/data/deep/l1/l2');
    assert.deepEqual(await page.locator('.crumbs > *').allInnerTexts(), [
      '/',
      '›',
      'data',
      '›',
      'deep',
      '›',
      'l1',
      '›',
      'l2',
      '(up)',
    ]);
    assert.deepEqual(
      await page.locator('#listing tbody tr[data-name]').evaluateAll((r) => r.map((x) => x.getAttribute('data-name'))),
      ['l3'],
    );
    await shot('browse-deep');
    for (const want of ['/data/deep/l1', '/data/deep', '/data']) {
      await page.goBack();
      await page.waitForURL((u) => u.searchParams.get('path') === want);
      await page
        .locator('.crumbs span[aria-current]')
        .filter({ hasText: want.split('/').pop() ?? '' })
        .waitFor();
    }
    await page.goForward();
    await page.waitForURL((u) => u.searchParams.get('path') === '/data/deep');
    await page.locator('#listing tbody tr[data-name="l1"]').waitFor();

    await page.goto(`${base}?view=browse&host=web-1&path=/data`);
    await page.locator('#listing tbody tr[data-name]').first().waitFor();
    // One click: the largest first, as ncdu and file managers sort sizes (issue 40, item 10).
    await page.click('#listing th a[data-sort="size"]');
    await page.waitForURL((u) => u.searchParams.get('sort') === 'size' && u.searchParams.get('order') === 'desc');
    // The URL changes first; the rows come with the view's call (a loaded machine takes a while).
    await page.waitForFunction(() => document.querySelectorAll('#listing tbody tr[data-name]').length >= 7);
    assert.equal(await page.getAttribute('#listing th[aria-sort]', 'aria-sort'), 'descending');
    const sizes = await page
      .locator('#listing tbody tr[data-name] td[data-bytes]')
      .evaluateAll((tds) => tds.map((td) => Number(td.getAttribute('data-bytes'))));
    assert.deepEqual(
      sizes,
      [...sizes].sort((a, b) => b - a),
      'largest first',
    );
    assert.ok(sizes.length >= 7);
    // Keyboard: the sort links and directory links are reachable with Tab and open with Enter.
    await page.focus('#listing a:text-is("media/")');
    await page.keyboard.press('Enter');
    await page.waitForURL((u) => u.searchParams.get('path') === '/data/media');
    await page.locator('#listing tbody tr[data-name="video.bin"]').waitFor();
    await page.keyboard.press('Backspace');
    await page.waitForURL((u) => u.searchParams.get('path') === '/data');
    assert.deepEqual(errors, []);
  });

  it('browse: each directory’s cap as the answer says it, and "Load more" while there is a next_cursor', async () => {
    await page.goto(`${base}?view=browse&host=web-1&path=/data&depth=2`);
    await page.locator('#browse-notices [data-cap]').first().waitFor();
    assert.match(
      (await page.locator('#browse-notices').textContent()) ?? '',
      /big: 50 items hidden \(showing first 100 of 150 total\)/,
    );
    await page.goto(`${base}?view=browse&host=web-1&path=/data/wide`);
    await page.locator('#load-more').waitFor({ state: 'visible' });
    const first = await page.locator('#listing tbody tr[data-name]').count();
    assert.ok(first > 0 && first < WIDE, `a first page of ${first} rows`);
    while (await page.locator('#load-more').isVisible()) {
      const n = await page.locator('#listing tbody tr[data-name]').count();
      await page.click('#load-more');
      await page.waitForFunction((k) => document.querySelectorAll('#listing tbody tr[data-name]').length > k, n);
    }
    assert.equal(await page.locator('#listing tbody tr[data-name]').count(), WIDE, 'every row once');
    assert.equal(await page.locator('#listing tbody tr[data-name="w2099"]').count(), 1);
    // (axe-core ran on the browse table above; on 2,100 rows it takes minutes on a loaded machine.)
    assert.deepEqual(errors, []);
  });

  it('space: treemap and size list merged over hosts, hover with exact bytes per host, lower bounds marked, drill-down', async () => {
    await page.goto(`${base}?view=space&host=${encodeURIComponent('web-1,web-2')}&path=/data&depth=1`);
    await page.locator('#treemap g.node[data-path="media"]').waitFor();
    const total = (await page.locator('#space-total').textContent()) ?? '';
    assert.match(total, /^Total ≥ /, `the total is a lower bound (web-2 cannot read secret/): ${total}`);
    assert.match(total, /in \/data, 2 hosts, as du -sb/);
    const list = await page.locator('#sizes tbody tr').evaluateAll((rs) => rs.map((r) => r.getAttribute('data-path')));
    assert.deepEqual(list.slice(0, 3), ['media', 'big', 'sub'], `largest first: ${list}`);
    assert.ok(list.includes('secret'));
    assert.match((await page.locator('#sizes tr[data-path="secret"] td').first().textContent()) ?? '', /^≥ /);
    assert.equal(await page.locator('#treemap g.node[data-path="secret"] rect.partial').count(), 1, 'hatched');
    await page.hover('#treemap g.node[data-path="media"]');
    await page.locator('#tip').waitFor({ state: 'visible' });
    const tip = await page.locator('#tip > *').allTextContents();
    // du -b counts the directory itself: its own size, whatever the file system makes it.
    const media = (h: string, file: number) => file + fs.lstatSync(path.join(root, h, 'data/media')).size;
    const [m1, m2] = [media('h1', 200_000), media('h2', 300_000)];
    const n = (x: number) => x.toLocaleString('en-US');
    assert.equal(tip[0], '/data/media');
    assert.match(tip[1], new RegExp(`^${n(m1 + m2)} bytes \\(4\\d\\d KiB\\)$`));
    assert.deepEqual(tip.slice(2), [`web-1: ${n(m1)} bytes`, `web-2: ${n(m2)} bytes`]);
    await audit('space');
    await shot('space');
    await page.mouse.move(0, 0);

    // One host at a time.
    await page.selectOption('#space-by', 'web-1');
    await page.waitForURL((u) => u.searchParams.get('by') === 'web-1');
    await page.locator('#treemap g.node[data-path="media"]').waitFor();
    assert.match((await page.locator('#space-total').textContent()) ?? '', /^Total \d.* in \/data, web-1/);
    await page.hover('#treemap g.node[data-path="media"]');
    assert.deepEqual((await page.locator('#tip > *').allTextContents()).slice(2), [`web-1: ${n(m1)} bytes`]);

    // Drill into big/, then back.
    await page.click('#treemap g.node[data-path="big"]');
    await page.waitForURL((u) => u.searchParams.get('path') === '/data/big');
    await page
      .locator('#space-total')
      .filter({ hasText: /in \/data\/big/ })
      .waitFor();
    assert.equal(await page.locator('.crumbs span[aria-current]').textContent(), 'big');
    await page.goBack();
    await page.waitForURL((u) => u.searchParams.get('path') === '/data');
    await page.locator('#treemap g.node[data-path="media"]').waitFor();
    // Keyboard: a rectangle takes focus and opens with Enter.
    await page.focus('#treemap g.node[data-path="deep"]');
    await page.keyboard.press('Enter');
    await page.waitForURL((u) => u.searchParams.get('path') === '/data/deep');
    assert.deepEqual(errors, []);
  });

  it('compare: which hosts agree, and what differs at each path', async () => {
    await page.goto(`${base}?view=compare&host=${encodeURIComponent('web-1,web-2,dead')}&path=/data&depth=1`);
    await page.locator('#diff-groups [data-group="B"]').waitFor();
    const groups = await page.locator('#diff-groups .card').allInnerTexts();
    assert.deepEqual(groups.sort(), ['A (baseline): web-1', 'B: web-2'].sort());
    const text = (await page.locator('#differences tr').allInnerTexts()).join(' ').replace(/\s+/g, ' ');
    assert.match(text, /a\.log web-1 file, 2\.9 KiB \(3,000 B\)/);
    assert.match(text, /web-2 file, 3\.9 KiB \(4,000 B\)/);
    assert.match(text, /only-on-2\.txt web-1 absent web-2 file/);
    assert.match(text, /sub web-1 dir.* web-2 absent/);
    // Owners as each host names them (issue 40, item 10), not 0:0; the ids in the title.
    await page.waitForFunction(
      () => document.querySelector('#differences span[data-owner="web-1"]')?.textContent === 'root:root',
    );
    assert.equal(await page.getAttribute('#differences span[data-owner="web-1"]', 'title'), 'uid 0, gid 0');
    assert.match((await page.locator('#view-compare').textContent()) ?? '', /dead: unreachable/);
    await audit('compare');
    await shot('compare');
  });

  it('compare: a directory some hosts cannot read shows as denied there, not as an empty directory', async () => {
    await page.goto(`${base}?view=compare&host=${encodeURIComponent('web-1,web-2')}&path=/data&depth=2`);
    await page.locator('#diff-groups [data-group="B"]').waitFor();
    // web-2's agent (nobody) lists secret/ but cannot read it; web-1 has none.
    const cell = page.locator('#differences td[data-error="DENIED"]');
    await cell.waitFor();
    assert.match((await cell.textContent()) ?? '', /^\[DENIED\]/);
    const text = (await page.locator('#differences tr').allInnerTexts()).join(' ').replace(/\s+/g, ' ');
    assert.match(text, /secret web-1 absent web-2 \[DENIED\]/);
    assert.doesNotMatch(text, /web-2 dir, 0 B/);
    await audit('compare (denied)');
  });

  it('every view opens on a path the selected hosts allow (the README serve --allow), and keeps it across views', async () => {
    // The README's gateway: no inventory, localhost under --allow only; `/` would be refused.
    const allowed = path.join(root, 'h1', 'data');
    const own = startGateway(['--http', '127.0.0.1:0', '--allow', allowed], { FLEETLS_TOKEN: TOKEN });
    const tab = await context.newPage();
    try {
      const at = await own.waitFor(/dashboard at (http:\/\/\S+)/);
      watch(tab);
      await tab.addInitScript((tok) => sessionStorage.setItem('fleetls-token', tok), TOKEN);
      await tab.goto(`${at}?view=browse`);
      await tab.waitForURL((u) => u.searchParams.get('path') === allowed);
      await tab.locator('#listing tbody tr[data-name="a.log"]').first().waitFor();
      assert.equal(await tab.locator('#listing tr.failed').count(), 0, 'no host refuses it');
      for (const view of ['space', 'compare', 'browse']) {
        await tab.click(`#nav a[data-view="${view}"]`);
        await tab.waitForURL((u) => u.searchParams.get('view') === view);
        assert.equal(new URL(tab.url()).searchParams.get('path'), allowed, `${view} keeps the path`);
      }
      // A path and hosts picked in one view go along to the next.
      await tab.goto(`${at}?view=browse&host=localhost&path=${encodeURIComponent(`${allowed}/big`)}`);
      await tab.locator('#listing tbody tr').first().waitFor();
      await tab.click('#nav a[data-view="space"]');
      await tab.waitForURL((u) => u.searchParams.get('view') === 'space');
      const u = new URL(tab.url());
      assert.equal(u.searchParams.get('path'), `${allowed}/big`);
      assert.equal(u.searchParams.get('host'), 'localhost');
      assert.deepEqual(errors, []);
    } finally {
      await tab.close();
      await own.stop();
    }
  });

  it('a narrow screen scrolls the listing in its box, times on one line; modified sorts newest first', async () => {
    const narrow = await context.newPage();
    try {
      watch(narrow);
      await narrow.setViewportSize({ width: 420, height: 800 });
      await narrow.addInitScript((tok) => sessionStorage.setItem('fleetls-token', tok), TOKEN);
      await narrow.goto(`${base}?view=browse&host=web-1&path=/data&depth=1`);
      await narrow.locator('#listing tbody tr[data-name="a.log"]').waitFor();
      const box = await narrow.evaluate(
        `(() => { const d = document.querySelector('#listing').parentElement; const r = d.getBoundingClientRect();
          const t = document.querySelector('#listing tr[data-name="a.log"] td.when');
          const range = document.createRange(); range.selectNodeContents(t);
          const tops = new Set([...range.getClientRects()].map((q) => Math.round(q.top)));
          return { right: r.right, scroll: d.scrollWidth, client: d.clientWidth, timeLines: tops.size }; })()`,
      );
      const { right, scroll, client, timeLines } = box as {
        right: number;
        scroll: number;
        client: number;
        timeLines: number;
      };
      assert.ok(right <= 420, `the table's box ends inside the screen (${right})`);
      assert.ok(scroll > client, 'the table scrolls in it');
      assert.equal(timeLines, 1, 'the modified time is one line');
      await narrow.click('#listing th a[data-sort="modified"]');
      await narrow.waitForURL(
        (u) => u.searchParams.get('sort') === 'modified' && u.searchParams.get('order') === 'desc',
      );
      assert.deepEqual(errors, []);
    } finally {
      await narrow.close();
    }
  });

  it('light and dark: the theme button switches, and both pass axe-core', async () => {
    await page.goto(`${base}?view=space&host=web-1&path=/data&depth=2`);
    await page.locator('#treemap g.node').first().waitFor();
    await page.click('#theme');
    assert.equal(await page.getAttribute('html', 'data-theme'), 'light');
    await page.click('#theme');
    assert.equal(await page.getAttribute('html', 'data-theme'), 'dark');
    await page.mouse.move(0, 0);
    await audit('dark');
    await shot('space-dark');
    await page.goto(`${base}?view=hosts`);
    await page.locator('#hosts tbody tr[data-host="web-1"] .badge.ok').waitFor();
    await shot('hosts-dark');
    await page.click('#theme');
    assert.equal(await page.getAttribute('html', 'data-theme'), null, 'back to the system’s');
  });

  it('sign-in: a token accepted before and refused now says so (the gateway restarted with another token)', async () => {
    // The tab leaves while the gateway restarts (a page left open would log each refused poll),
    // and comes back to it with the token it signed in with.
    await page.goto('about:blank');
    await gw.stop();
    const inventory = fs.readFileSync(path.join(root, 'inventory-path'), 'utf8');
    gw = startGateway(['--http', `127.0.0.1:${port}`], {
      FLEETLS_INVENTORY: inventory,
      FLEETLS_TOKEN: 'a-new-token-0123456789',
    });
    await gw.waitFor(/dashboard at (http:\/\/\S+)/);
    // What was logged while the old gateway stopped (503s of its shutdown) is not this page's.
    errors.length = 0;
    await page.goto(`${base}?view=hosts`);
    const state = await loginState();
    assert.equal(state.kind, 'expired');
    assert.match(state.text, /no longer accepted/);
    await shot('login-expired');
    dropRefusals();
    assert.deepEqual(errors, []);
  });
});
