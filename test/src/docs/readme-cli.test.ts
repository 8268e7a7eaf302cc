// The README's CLI synopsis names every flag each command takes, and only those: a flag
// added to a tool's CLI face (--cursor on diff and du, the find-like filters on ls) shows
// up where a reader looks for it.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { TOOLS, toolFlags } from '@fleetls/gateway';
import { freePort, type Launched, launch, waitFor } from '@fleetls/testkit';
import { REPO_ROOT } from '../helpers/agent-process.js';
import { type Chromium, openChromium } from '../helpers/chromium.js';

/** `fleetls CMD …` and its indented continuation lines, from the README's CLI block. */
function synopsis(readme: string): Map<string, string> {
  const block = readme.split('## The CLI')[1]?.split('```')[1] ?? '';
  const out = new Map<string, string>();
  let current: string | undefined;
  for (const line of block.split('\n')) {
    const head = /^fleetls (\S+)/.exec(line);
    if (head) {
      current = head[1];
      out.set(current, line);
    } else if (current && /^\s/.test(line)) out.set(current, `${out.get(current)} ${line}`);
    else current = undefined;
  }
  return out;
}

describe('README CLI synopsis', () => {
  const entries = synopsis(fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8'));

  for (const tool of TOOLS) {
    const cli = tool.cli;
    if (!cli) continue;
    it(`fleetls ${cli.command} lists exactly the flags ${tool.name} takes`, () => {
      const entry = entries.get(cli.command);
      assert.ok(entry, `no synopsis line for fleetls ${cli.command}`);
      const flags = new Set(toolFlags(tool).map(({ option }) => option.long));
      const named = new Set([...entry.matchAll(/--[a-z][a-z-]*/g)].map((m) => m[0]));
      named.delete('--json');
      assert.deepEqual(
        [...flags].filter((f) => f && !named.has(f)),
        [],
        `missing from fleetls ${cli.command}`,
      );
      assert.deepEqual(
        [...named].filter((f) => !flags.has(f)),
        [],
        `not flags of ${cli.command}`,
      );
    });
  }
});

/** The README's `serve --http` command, as a reader pastes it. */
function serveCommand(readme: string): string {
  const line = readme.split('\n').find((l) => /^FLEETLS_TOKEN=.* fleetls serve --http /.test(l));
  assert.ok(line, 'the README has a serve --http command');
  return line;
}

describe("README's serve --http command, pasted into a terminal", () => {
  let browser: Chromium | undefined;
  let server: Launched | undefined;
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('prints the dashboard address that opens signed in with the token the command made', async () => {
    const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
    // As written, but on a free port: another test may hold 8765.
    const port = await freePort();
    const command = serveCommand(readme).replace(/127\.0\.0\.1:8765/, `127.0.0.1:${port}`);
    const { FLEETLS_INVENTORY: _, FLEETLS_TOKEN: __, ...env } = process.env;
    // script(1) gives it a terminal, as a reader's shell has; its output is the terminal's.
    server = launch('script', ['-qfec', command, '/dev/null'], { cwd: REPO_ROOT, env });
    const link = await waitFor(
      () => /dashboard at (http:\/\/\S+#token=[0-9a-f]{32}) \(opens signed in\)/.exec(server?.stdout() ?? '')?.[1],
      { timeoutMs: 60_000 },
    );
    const token = new URL(link).hash.slice('#token='.length);
    // The value is the bearer token an MCP client sends.
    const mcp = await fetch(link.replace(/\/#.*$/, '/mcp'), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(mcp.status, 200);
    browser = await openChromium();
    const { page } = browser;
    await page.goto(link);
    await page.locator('#nav').waitFor({ state: 'visible' });
    assert.equal(await page.locator('#login').isHidden(), true, 'no sign-in form');
    assert.equal(new URL(page.url()).hash, '', 'the token is cleared from the address bar');
    assert.equal(await page.evaluate('sessionStorage.getItem("fleetls-token")'), token);
    assert.deepEqual(browser.errors, []);
  });
});
