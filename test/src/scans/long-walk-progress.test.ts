// Progress while one host works (issue 40, item 9): `du localhost:/usr --depth 3` showed
// nothing for seconds, then a full bar, and the dashboard's scan panel said `entries seen 0`
// until a host finished. Here one real agent walks a tree whose last part is a FUSE mount
// that never answers (test/fixtures/fuse-fs.py hangs; the agent's fs timeout is a minute, so
// the walk stays stuck there while the test looks): 3,000 entries are read, then nothing
// more comes. A ranked `fleetls ls` on a terminal (script(1) gives it one) sends no row until
// it is done, so the count can only come from the agent's progress messages
// (WalkResponse.entries_seen): the progress line says thousands of entries seen while no host
// has answered. In Chromium, a Browse of it goes on as a scan and the panel counts the
// entries the host has sent while it is still walking. Needs root (FUSE).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Launched, launch, makeTree, range } from '@fleetls/testkit';
import { type AgentProcess, startAgent } from '../helpers/agent-process.js';
import { type Chromium, openChromium } from '../helpers/chromium.js';
import { type FuseMount, mountFuse } from '../helpers/fuse.js';
import { GATEWAY_MAIN, type GatewayProcess, startGateway } from '../helpers/gateway-process.js';

declare const document: {
  querySelector(sel: string): { textContent: string | null } | null;
};
declare const sessionStorage: { setItem(key: string, value: string): void };

const FILES = 3000;
const TOKEN = 'long-walk-progress-token-0123456';

/** The number in `12,345 entries seen`, the last one a progress line drew. */
function lastSeen(text: string): number | undefined {
  const all = [...text.matchAll(/([\d,]+) entries seen/g)];
  const last = all.at(-1);
  return last ? Number(last[1].replaceAll(',', '')) : undefined;
}

describe('progress while one host walks a long time', () => {
  let work: string;
  let root: string;
  let fuse: FuseMount;
  let agent: AgentProcess;
  let inventory: string;

  before(async () => {
    work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-long-walk-')));
    root = path.join(work, 'root');
    makeTree(root, [
      ...range(
        FILES,
        (i) => `f${String(i).padStart(4, '0')}`,
        (i) => 'x'.repeat(i % 7),
      ),
      ['zz-hangs', { dir: true }],
    ]);
    fs.chmodSync(work, 0o755);
    fuse = await mountFuse('hangs', path.join(root, 'zz-hangs'));
    agent = await startAgent({ allow: [root], args: ['--fs-timeout-ms', '60000'] });
    // An agent with a thread on the hung mount must not outlive a failed run.
    process.once('exit', () => agent.child.kill('SIGKILL'));
    inventory = path.join(work, 'fleetls.yaml');
    fs.writeFileSync(
      inventory,
      [
        'hosts:',
        `  slow-1: { agent: "${agent.address}" }`,
        'agent_tls: insecure',
        'defaults: { call_deadline_ms: 3000, scan_host_deadline_ms: 120000 }',
        '',
      ].join('\n'),
    );
  });
  after(async () => {
    // First the mount: a thread blocked on it returns only when it goes.
    await fuse?.unmount();
    await agent?.stop('SIGKILL');
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it('fleetls ls on a terminal counts the entries the agent has read before it answers', async () => {
    const cmd = [process.execPath, GATEWAY_MAIN, 'ls', `slow-1:${root}`, '--order-by', 'size', '--max-depth', '3']
      .map((a) => `'${a}'`)
      .join(' ');
    let term: Launched | undefined;
    try {
      // script(1): the CLI's stderr is a terminal, as an operator's is; what it drew comes out on script's stdout.
      term = launch('script', ['-qfec', cmd, '/dev/null'], {
        name: 'fleetls ls',
        env: { ...process.env, FLEETLS_INVENTORY: inventory, NO_COLOR: '1' },
      });
      const t = term;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no count of thousands before an answer; the terminal showed:\n${t.stdout()}`)),
          60_000,
        );
        const check = () => {
          const out = t.stdout();
          if ((lastSeen(out) ?? 0) >= FILES - 256 && !/hosts answered/.test(out)) {
            clearTimeout(timer);
            t.child.stdout?.off('data', check);
            resolve();
          }
        };
        t.child.stdout?.on('data', check);
        void t.exited.then(() => {
          clearTimeout(timer);
          reject(new Error(`fleetls ls ended first:\n${t.stdout()}`));
        });
      });
      assert.match(term.stdout(), /asking hosts… · [\d,]+ entries seen · \d+ s/);
    } finally {
      await term?.stop('SIGKILL');
    }
  });

  describe('the dashboard', () => {
    let gw: GatewayProcess;
    let browser: Chromium;
    before(async () => {
      gw = startGateway(['--http', '127.0.0.1:0'], { FLEETLS_INVENTORY: inventory, FLEETLS_TOKEN: TOKEN });
      const base = await gw.waitFor(/dashboard at (http:\/\/\S+)/);
      browser = await openChromium();
      await browser.page.addInitScript((tok) => sessionStorage.setItem('fleetls-token', tok), TOKEN);
      await browser.page.goto(`${base}?view=browse&host=slow-1&path=${encodeURIComponent(root)}&depth=3`);
    });
    after(async () => {
      await browser?.close();
      await gw?.stop();
    });

    it("the scan panel's entries seen moves while its one host still walks", async () => {
      const { page } = browser;
      await page.locator('#scan-panel').waitFor({ timeout: 60_000 });
      await page.waitForFunction(
        (files) => {
          const k = (key: string) => document.querySelector(`#scan-panel [data-k="${key}"]`)?.textContent ?? '';
          return k('done') === '0 of 1' && Number(k('entries').replaceAll(',', '')) >= files;
        },
        FILES - 256,
        { timeout: 60_000 },
      );
      // No pace to go by while the only host walks: no guess at the time left.
      assert.equal(await page.locator('#scan-panel [data-k="left"]').textContent(), 'not known yet');
      assert.deepEqual(browser.errors, []);
    });
  });
});
