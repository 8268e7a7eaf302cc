// The space treemap inside the chat: disk_usage links its results to the MCP App
// ui://fleetls/du-treemap (MCP Apps extension, `_meta.ui.resourceUri`), the gateway serves
// that resource, and the app, loaded in a sandboxed iframe of a host page in headless Chromium
// (the host's side of the postMessage protocol is the test's, as a chat client's would be),
// draws the real disk_usage result of a real gateway and agent, and drills down by asking the
// host to call disk_usage again. Text answers are unchanged for clients that render no apps.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '@fleetls/testkit';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type BrowserContext, chromium, type Frame, type Page } from 'playwright-core';
import { type AgentProcess, REPO_ROOT, startAgent } from '../../helpers/agent-process.js';
import { type GatewayProcess, startGateway } from '../../helpers/gateway-process.js';

const TOKEN = 'mcp-app-token-0123456789abcdef';
const ARTIFACTS = process.env.FLEETLS_TEST_ARTIFACTS ?? path.join(REPO_ROOT, 'test/artifacts');
const AXE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const URI = 'ui://fleetls/du-treemap';

// The host page's globals, inside page.evaluate (this package compiles without the DOM lib).
declare const document: { querySelector(sel: string): { textContent: string | null } | null };
declare const window: unknown;

/** The chat client's side of MCP Apps: initialize, then the tool's input and result; tools/call proxied to the gateway. */
const HOST_PAGE = `<!doctype html><html lang="en"><head><title>host</title></head><body>
<main><h1>chat</h1><iframe id="app" title="fleetls treemap" sandbox="allow-scripts" width="900" height="480"></iframe></main>
<script>
const frame = document.getElementById('app');
window.seen = [];
window.addEventListener('message', async (ev) => {
  if (ev.source !== frame.contentWindow) return;
  const m = ev.data;
  window.seen.push(m.method || 'response');
  const reply = (body) => frame.contentWindow.postMessage({ jsonrpc: '2.0', id: m.id, ...body }, '*');
  if (m.method === 'ui/initialize')
    reply({ result: { protocolVersion: '2026-01-26', hostInfo: { name: 'test-host', version: '1' }, hostCapabilities: {}, hostContext: { theme: 'light' } } });
  if (m.method === 'ui/notifications/initialized') {
    frame.contentWindow.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/tool-input', params: { arguments: window.toolArgs } }, '*');
    frame.contentWindow.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: window.toolResult }, '*');
  }
  if (m.method === 'tools/call') reply({ result: await window.callTool(m.params.name, m.params.arguments) });
});
</script></body></html>`;

describe('disk_usage as an MCP App (ui://fleetls/du-treemap)', () => {
  let root: string;
  let agent: AgentProcess;
  let gw: GatewayProcess;
  let client: Client;
  let userDataDir: string;
  let context: BrowserContext;
  let page: Page;
  const errors: string[] = [];

  before(async () => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-mcp-app-')));
    const data = path.join(root, 'data');
    for (const [p, size] of [
      ['logs/app.log', 120_000],
      ['logs/old/2024.log', 60_000],
      ['cache/blob', 40_000],
      ['etc/conf', 500],
    ] as const) {
      fs.mkdirSync(path.dirname(path.join(data, p)), { recursive: true });
      fs.writeFileSync(path.join(data, p), Buffer.alloc(size, 1));
    }
    agent = await startAgent({ allow: [root] });
    const inventory = path.join(root, 'fleetls.yaml');
    fs.writeFileSync(inventory, `hosts:\n  web-1: { agent: "${agent.address}" }\nagent_tls: insecure\n`);
    gw = startGateway(['--http', '127.0.0.1:0'], { FLEETLS_INVENTORY: inventory, FLEETLS_TOKEN: TOKEN });
    const url = await gw.waitFor(/"url":"(http:[^"]+)"/);
    // Listening comes first; the inventory loads after (slowly on a loaded machine): wait for /readyz.
    await waitFor(
      () =>
        fetch(new URL('/readyz', url)).then(
          (r) => r.ok,
          () => false,
        ),
      { timeoutMs: 60_000, everyMs: 250, what: '/readyz' },
    );
    client = new Client({ name: 'mcp-app-test', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-chromium-'));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
      viewport: { width: 1000, height: 640 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
  });
  after(async () => {
    await client?.close();
    await context?.close();
    await gw?.stop();
    await agent?.stop();
    if (root) fs.rmSync(root, { recursive: true, force: true });
    if (userDataDir) fs.rmSync(userDataDir, { recursive: true, force: true });
  });

  it('links disk_usage (only) to the app and serves the app as an MCP App resource', async () => {
    const { tools } = await client.listTools();
    const du = tools.find((t) => t.name === 'disk_usage');
    assert.deepEqual((du?._meta as { ui?: unknown })?.ui, { resourceUri: URI });
    assert.equal(du?._meta?.['ui/resourceUri'], URI, 'the older flat key too');
    assert.deepEqual(
      tools.filter((t) => t._meta !== undefined).map((t) => t.name),
      ['disk_usage'],
    );
    const { resources } = await client.listResources();
    assert.deepEqual(
      resources.map((r) => [r.uri, r.mimeType]),
      [[URI, 'text/html;profile=mcp-app']],
    );
    const read = await client.readResource({ uri: URI });
    const html = (read.contents[0] as { text: string }).text;
    assert.match(html, /^<!doctype html>/);
    assert.match(html, /<script type="module">/, 'one file: the script inline');
  });

  it('keeps the text answer a text table', async () => {
    const res = (await client.callTool({
      name: 'disk_usage',
      arguments: { host: 'web-1', path: path.join(root, 'data'), depth: 2 },
    })) as CallToolResult;
    const text = (res.content[0] as { text: string }).text;
    assert.doesNotMatch(text, /<|ui:\/\//, 'no markup and no link in the text');
    assert.match(text, /logs/);
  });

  it('draws the real result in a sandboxed iframe and drills down through the host', async () => {
    const args = { host: 'web-1', path: path.join(root, 'data'), depth: 2 };
    const result = await client.callTool({ name: 'disk_usage', arguments: args });
    const html = ((await client.readResource({ uri: URI })).contents[0] as { text: string }).text;
    await page.exposeFunction('callTool', async (name: string, a: Record<string, unknown>) =>
      client.callTool({ name, arguments: a }),
    );
    await page.setContent(HOST_PAGE);
    await page.evaluate(
      ({ a, r, src }) => {
        const w = window as { toolArgs: unknown; toolResult: unknown };
        w.toolArgs = a;
        w.toolResult = r;
        (document.querySelector('#app') as unknown as { srcdoc: string }).srcdoc = src;
      },
      { a: args, r: result, src: html },
    );
    const frame = (await (await page.waitForSelector('#app')).contentFrame()) as Frame;
    await frame.locator('#treemap g.node[data-path="logs"]').waitFor();
    assert.equal(await frame.locator('#where').textContent(), args.path);
    assert.match((await frame.locator('#total').textContent()) ?? '', /^Total 2\d\d KiB \([\d,]+ bytes\) on 1 host$/);
    const names = await frame.locator('#sizes tbody td.name').allInnerTexts();
    assert.deepEqual(names.slice(0, 3), ['logs/', 'cache/', 'etc/']);
    // Two levels drawn: logs/old inside logs.
    assert.equal(await frame.locator('#treemap g.node[data-path="logs/old"]').count(), 1);
    await frame.evaluate(AXE);
    const serious = await frame.evaluate(async () => {
      const r = await (
        window as { axe: { run(): Promise<{ violations: { id: string; impact: string }[] }> } }
      ).axe.run();
      return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);
    });
    assert.deepEqual(serious, []);
    await page.screenshot({ path: path.join(ARTIFACTS, 'mcp-app-treemap.png') });

    // On its header strip (its own subdirectories and rest fill the inside).
    await frame.click('#treemap g.node[data-path="logs"]', { position: { x: 6, y: 6 } });
    await frame
      .locator('#where')
      .filter({ hasText: /\/data\/logs$/ })
      .waitFor();
    await frame.locator('#treemap g.node[data-path="old"]').waitFor();
    assert.equal(await frame.locator('#up').isVisible(), true);
    await frame.click('#up');
    await frame.locator('#treemap g.node[data-path="cache"]').waitFor();
    const seen = (await page.evaluate('window.seen')) as string[];
    assert.deepEqual(
      [...new Set(seen)].sort(),
      ['tools/call', 'ui/initialize', 'ui/notifications/initialized', 'ui/notifications/size-changed'].sort(),
    );
    assert.deepEqual(errors, []);
  });
});
