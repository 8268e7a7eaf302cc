// The web dashboard in a real headless Chromium (Debian's, driven by playwright-core; no
// browser is downloaded): served by `fleetls serve --http` with a bearer token, in front of
// real agents and a dead address. The page asks for the token and keeps it in session
// storage, shows the hosts with their live status, browses a directory (caps, paging with
// the cursor), and draws the treemap of recursive sizes. Screenshots go to test/artifacts/.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { type AgentProcess, REPO_ROOT, startAgent } from './helpers/agent-process.js';
import { type GatewayProcess, startGateway } from './helpers/gateway-process.js';

const TOKEN = 'dashboard-token-0123456789abcdef';
const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = process.env.FLEETLS_TEST_ARTIFACTS ?? path.join(REPO_ROOT, 'test/artifacts');
/** More rows than one host sends per page (2048 with --max-answer-bytes 16384), so the listing pages. */
const WIDE = 2100;

function write(p: string, size: number): void {
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, Buffer.alloc(size, 0x61));
}

describe('web dashboard in headless Chromium', () => {
  let root: string;
  let data: string;
  let agents: AgentProcess[];
  let gw: GatewayProcess;
  let base: string;
  let userDataDir: string;
  let context: BrowserContext;
  let page: Page;

  before(async () => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-dashboard-')));
    data = path.join(root, 'data');
    write(path.join(data, 'a.log'), 3000);
    write(path.join(data, 'sub/deep.log'), 70_000);
    for (let i = 0; i < 150; i++) write(path.join(data, `big/f${String(i).padStart(3, '0')}`), 1000 + i);
    for (let i = 0; i < WIDE; i++) write(path.join(data, `wide/w${String(i).padStart(4, '0')}`), 1);
    agents = await Promise.all([startAgent({ allow: [root] }), startAgent({ allow: [root] })]);
    const inventory = path.join(root, 'fleetls.yaml');
    fs.writeFileSync(
      inventory,
      [
        'hosts:',
        `  web-1: { agent: "${agents[0].address}" }`,
        `  web-2: { agent: "${agents[1].address}" }`,
        '  dead: { agent: "127.0.0.1:1" }',
        'agent_tls: insecure',
        '',
      ].join('\n'),
    );
    gw = startGateway(['--http', '127.0.0.1:0', '--max-answer-bytes', '16384'], {
      FLEETLS_INVENTORY: inventory,
      FLEETLS_TOKEN: TOKEN,
    });
    base = await gw.waitFor(/dashboard at (http:\/\/\S+)/);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-chromium-'));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
      viewport: { width: 1100, height: 1000 },
    });
    page = context.pages()[0] ?? (await context.newPage());
  });
  after(async () => {
    await context?.close();
    await gw?.stop();
    await Promise.all((agents ?? []).map((a) => a.stop()));
    if (root) fs.rmSync(root, { recursive: true, force: true });
    if (userDataDir) fs.rmSync(userDataDir, { recursive: true, force: true });
  });

  const shot = (name: string) =>
    page.screenshot({ path: path.join(ARTIFACTS, `dashboard-${name}.png`), fullPage: true });

  it('asks for the token and keeps it in session storage only', async () => {
    const res = await page.goto(base);
    assert.match(
      res?.headers()['content-security-policy'] ?? '',
      /script-src 'self'; style-src 'self'; connect-src 'self'/,
    );
    await page.locator('#login').waitFor({ state: 'visible' });
    const html = await page.content();
    assert.ok(!html.includes(TOKEN), 'the page carries no secret');
    await shot('login');
    await page.fill('#token', TOKEN);
    await page.click('#login button[type=submit]');
    await page.locator('#app').waitFor({ state: 'visible' });
    assert.equal(await page.evaluate('sessionStorage.getItem("fleetls-token")'), TOKEN);
    assert.equal(await page.evaluate('localStorage.length'), 0);
  });

  it('shows the hosts with their live status', async () => {
    await page.locator('#hosts tbody tr[data-host="dead"]').waitFor();
    const rows = (await page.locator('#hosts tbody tr').allInnerTexts()).map((tr) => tr.split('\t'));
    assert.deepEqual(
      rows.map((r) => `${r[0]} ${r[1]} ${r[3].split(':')[0]}`),
      ['web-1 agent ok (agent)', 'web-2 agent ok (agent)', 'dead agent unreachable'],
    );
    assert.match(rows[0][4], /\d+\.\d+\.\d+/, 'the agent version');
    assert.match(rows[0][5], /^\d+ ms$/, 'the latency');
  });

  it('browses a directory across hosts, with its caps and error rows', async () => {
    await page.fill('#selector', 'web-1,web-2,dead');
    await page.fill('#path', data);
    await page.fill('#depth', '2');
    await page.fill('#per-dir', '100');
    await page.click('#browse button[type=submit]');
    await page.locator('#tree span.warn').first().waitFor();
    const text = (await page.locator('#tree').textContent()) ?? '';
    assert.match(text, /web-1: \[DIR\] big/);
    assert.match(text, /web-2: \[FILE\] sub\/deep\.log/);
    assert.match(text, /web-1: \[WARNING\] big: 50 items hidden \(showing first 100 of 150 total\)/);
    assert.match(text, /dead: \[ERROR\] unreachable/);
    await shot('browse');
  });

  it('pages a listing longer than one answer with the cursor', async () => {
    await page.fill('#selector', 'web-1');
    await page.fill('#path', path.join(data, 'wide'));
    await page.fill('#depth', '1');
    await page.fill('#per-dir', '10000');
    await page.click('#browse button[type=submit]');
    await page.locator('#next').waitFor({ state: 'visible' });
    const first = await page.locator('#tree span:not(.warn)').count();
    assert.ok(first < WIDE, `a first page of ${first} rows`);
    await page.click('#next');
    await page.locator('#tree span', { hasText: '[FILE] w2099' }).waitFor();
    assert.equal(await page.locator('#tree span:not(.warn)').count(), WIDE, 'both pages, each row once');
    assert.equal(await page.locator('#next').isHidden(), true, 'no cursor after the last page');
  });

  it('draws the treemap of recursive sizes across the hosts', async () => {
    await page.fill('#selector', 'web-1,web-2,dead');
    await page.fill('#path', data);
    await page.click('#space');
    await page.locator('#treemap rect[data-name="big"]').first().waitFor();
    const names = await page
      .locator('#treemap rect')
      .evaluateAll((rects) =>
        rects.map((r) => (r as { getAttribute(n: string): string | null }).getAttribute('data-name')),
      );
    for (const n of ['web-1', 'web-2', 'big', 'sub', 'wide', 'a.log']) assert.ok(names.includes(n), `${n} in ${names}`);
    assert.match((await page.locator('#walk-hosts').textContent()) ?? '', /dead: unreachable/);
    await shot('treemap');
  });
});
