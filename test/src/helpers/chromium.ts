// Debian's headless Chromium driven by playwright-core (no browser is downloaded), as the
// dashboard tests use it: every console error and page error of a watched page is collected,
// `audit` runs axe-core in the page (evaluated: the page's CSP refuses an injected script tag)
// and fails on a serious or critical violation or any console error, `shot` saves a screenshot
// under test/artifacts/ (or $FLEETLS_TEST_ARTIFACTS).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { REPO_ROOT } from './agent-process.js';

const CHROMIUM = '/usr/bin/chromium';
export const ARTIFACTS = process.env.FLEETLS_TEST_ARTIFACTS ?? path.join(REPO_ROOT, 'test/artifacts');
const AXE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

declare const window: unknown;

export interface Chromium {
  context: BrowserContext;
  /** The first tab, watched. */
  page: Page;
  /** Console errors and page errors of every watched page, since the last reset. */
  errors: string[];
  watch(p: Page): void;
  audit(what: string, p?: Page): Promise<void>;
  /** Saves test/artifacts/dashboard-<name>.png. */
  shot(name: string, p?: Page): Promise<void>;
  close(): Promise<void>;
}

export async function openChromium(): Promise<Chromium> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-chromium-'));
  let context: BrowserContext;
  try {
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
      viewport: { width: 1280, height: 900 },
    });
  } catch (err) {
    fs.rmSync(userDataDir, { recursive: true, force: true });
    throw err;
  }
  const errors: string[] = [];
  const watch = (p: Page) => {
    p.on('console', (m) => {
      if (m.type() === 'error') errors.push(`${m.text()} @ ${p.url()}`);
    });
    p.on('pageerror', (e) => errors.push(`pageerror ${e.message}`));
  };
  const page = context.pages()[0] ?? (await context.newPage());
  watch(page);
  return {
    context,
    page,
    errors,
    watch,
    async audit(what, p = page) {
      await p.evaluate(AXE);
      const violations = await p.evaluate(async () => {
        const r = await (
          window as {
            axe: { run(o: object): Promise<{ violations: { id: string; impact: string; nodes: unknown[] }[] }> };
          }
        ).axe.run({ resultTypes: ['violations'] });
        return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
      });
      const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      assert.deepEqual(serious, [], `${what}: axe-core serious violations ${JSON.stringify(serious)}`);
      assert.deepEqual(errors, [], `${what}: console errors`);
    },
    async shot(name, p = page) {
      await p.screenshot({ path: path.join(ARTIFACTS, `dashboard-${name}.png`), fullPage: true });
    },
    async close() {
      await context.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
