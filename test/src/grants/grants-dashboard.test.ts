// The dashboard under a grants file (issue 36), in a real headless Chromium, served by
// `fleetls serve --http --grants FILE` in front of real agents: web-team (list_hosts,
// list_directory, stat and list_files on @web under <tmp>/log) sees the Hosts and Browse
// views only, its two hosts, and a refusal naming its grant for a path or host outside it;
// it signs out (the token leaves the tab); ops, signed in next, sees every view and host.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { type Chromium, openChromium } from '../helpers/chromium.js';
import { type GatewayProcess, startGateway } from '../helpers/gateway-process.js';
import { type GrantsFleet, grantsYaml, startGrantsFleet, TOKEN_A, TOKEN_B } from '../helpers/grants-fleet.js';

declare const document: {
  querySelector(sel: string): { textContent: string | null; hidden?: boolean } | null;
  querySelectorAll(sel: string): ArrayLike<{ getAttribute(name: string): string | null }>;
};

describe('grants: the dashboard shows what its principal may see, and signs out', () => {
  let fleet: GrantsFleet;
  let gw: GatewayProcess;
  let base: string;
  let browser: Chromium;
  let page: Page;

  before(async () => {
    fleet = await startGrantsFleet();
    const grants = path.join(fleet.root, 'grants-dashboard.yaml');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(
      grants,
      grantsYaml({
        'web-team': {
          tokens: [TOKEN_A],
          tools: ['list_hosts', 'list_directory', 'stat', 'list_files'],
          hosts: ['@web'],
          paths: [fleet.log],
        },
        ops: { tokens: [TOKEN_B], tools: ['*'], hosts: ['all'], paths: ['/'] },
      }),
    );
    gw = startGateway(['--http', '127.0.0.1:0', '--grants', grants], { FLEETLS_INVENTORY: fleet.inventory });
    base = await gw.waitFor(/dashboard at (http:\/\/\S+)/);
    browser = await openChromium();
    page = browser.page;
  });
  after(async () => {
    await browser?.close();
    await gw?.stop();
    await fleet?.close();
  });

  const signIn = async (token: string, who: string) => {
    await page.goto(base);
    await page.locator('#login').waitFor({ state: 'visible' });
    await page.fill('#token', token);
    await page.click('#login button[type=submit]');
    await page.locator('#nav').waitFor({ state: 'visible' });
    await page.waitForFunction((w) => document.querySelector('#conn')?.textContent === `signed in as ${w}`, who);
  };
  const views = () =>
    page.locator('#nav a:not([hidden])').evaluateAll((as) => as.map((a) => a.getAttribute('data-view')));
  const hostRows = async (n: number) => {
    await page.waitForFunction((k) => document.querySelectorAll('#hosts tbody tr').length === k, n);
    return page.locator('#hosts tbody tr').evaluateAll((rs) => rs.map((r) => r.getAttribute('data-host')));
  };
  const fatal = async () => {
    await page.locator('#fatal').waitFor({ state: 'visible' });
    return (await page.locator('#fatal').textContent()) ?? '';
  };

  it('web-team: the views of its tools, its hosts, its root; a refusal naming its grant outside them', async () => {
    await signIn(TOKEN_A, 'web-team');
    assert.deepEqual(await views(), ['hosts', 'browse']);
    await page.goto(`${base}?view=hosts`);
    assert.deepEqual(await hostRows(2), ['web-1', 'web-2']);
    // A view it may not use shows the first it may.
    await page.goto(`${base}?view=space&host=web-1&path=${encodeURIComponent(fleet.log)}`);
    assert.deepEqual(await hostRows(2), ['web-1', 'web-2']);
    assert.equal(await page.locator('#view-space').isHidden(), true);
    await page.goto(`${base}?view=browse&host=web-1&path=${encodeURIComponent(fleet.log)}`);
    await page.locator('#listing tbody tr[data-name="a.log"]').waitFor();
    await page.goto(`${base}?view=browse&host=web-1&path=${encodeURIComponent(fleet.etc)}`);
    const outside = await fatal();
    assert.match(
      outside,
      /is outside web-team's roots; web-team may call list_hosts, list_directory, stat, list_files on hosts @web under/,
    );
    assert.equal(await page.locator('#listing tbody tr[data-name="secret.conf"]').count(), 0);
    await page.goto(`${base}?view=browse&host=db-1&path=${encodeURIComponent(fleet.log)}`);
    assert.match(await fatal(), /host 'db-1' is outside web-team's hosts/);
  });

  it('signs out: the token leaves the tab and the gateway is asked for one again', async () => {
    await page.click('#forget');
    await page.waitForFunction(
      () => document.querySelector('#login-state')?.textContent?.startsWith('Signed out') === true,
    );
    assert.equal(await page.evaluate('sessionStorage.getItem("fleetls-token")'), null);
    assert.equal(await page.locator('#nav').isHidden(), true);
    await page.goto(`${base}?view=hosts`);
    await page.locator('#login').waitFor({ state: 'visible' });
  });

  it('ops: every view and every host', async () => {
    await signIn(TOKEN_B, 'ops');
    assert.deepEqual(await views(), ['hosts', 'browse', 'space', 'compare', 'scans']);
    await page.goto(`${base}?view=hosts`);
    assert.deepEqual(await hostRows(3), ['web-1', 'web-2', 'db-1']);
    await page.goto(`${base}?view=browse&host=db-1&path=${encodeURIComponent(fleet.etc)}`);
    await page.locator('#listing tbody tr[data-name="secret.conf"]').waitFor();
  });
});
