// `fleetls serve` driven by the published MCP Inspector CLI: a client nobody on the team wrote.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { TOOLS } from '@fleetls/gateway';
import { assertConforms } from '@fleetls/gateway/testing';
import { GATEWAY_MAIN } from './helpers/gateway-process.js';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const INSPECTOR = require.resolve('@modelcontextprotocol/inspector-cli/build/cli.js');

async function inspector(args: string[]): Promise<Record<string, unknown>> {
  // inspector-cli 1.0.3 looks for its own package.json relative to the working directory,
  // so it must run from its build directory.
  const { stdout } = await run(
    process.execPath,
    [INSPECTOR, '--cli', process.execPath, GATEWAY_MAIN, 'serve', ...args],
    { cwd: dirname(INSPECTOR), env: { ...process.env, FLEETLS_INVENTORY: '' }, timeout: 60_000 },
  );
  const out = JSON.parse(stdout.slice(stdout.indexOf('{')));
  // A tool answer is checked against the tool's outputSchema.
  const tool = args[args.indexOf('--tool-name') + 1];
  if (args.includes('--tool-name') && !out.isError) assertConforms(tool, out.structuredContent);
  return out;
}

describe('MCP Inspector CLI against fleetls serve', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fleetls-inspector-'));
  mkdirSync(join(dir, 'sub'));
  writeFileSync(join(dir, 'sub', 'inner.txt'), 'x');
  writeFileSync(join(dir, 'top.txt'), 'yy');
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('lists every tool of the registry, read-only, with its schemas', async () => {
    const listed = await inspector(['--method', 'tools/list']);
    const { tools } = listed as {
      tools: { name: string; annotations?: Record<string, boolean>; outputSchema?: unknown }[];
    };
    // Issue 22: what a model pays for in every conversation, as a real client receives it: ≤ 10 KB,
    // read as 10 KiB (the bound mcp-server.test holds too) since issue 21 (whose MCP tasks' 195
    // bytes of `execution` went with the v2 SDK, issue 37).
    const bytes = Buffer.byteLength(JSON.stringify(listed));
    assert.ok(bytes <= 10_240, `tools/list is ${bytes} bytes`);
    assert.deepEqual(tools.map((t) => t.name).sort(), TOOLS.map((t) => t.name).sort());
    for (const t of tools) {
      assert.equal(t.annotations?.readOnlyHint, true, t.name);
      assert.equal(t.annotations?.idempotentHint, true, t.name);
      assert.ok(t.outputSchema, `${t.name} has an outputSchema`);
    }
  });

  /** list_directory of `dir` on localhost through the Inspector's CLI, with `more` --tool-arg values. */
  const listDirectory = async (...more: string[]) =>
    (await inspector([
      '--method',
      'tools/call',
      '--tool-name',
      'list_directory',
      ...['host=localhost', `path=${dir}`, ...more].flatMap((arg) => ['--tool-arg', arg]),
    ])) as { content: { text: string }[]; isError?: boolean };

  it('calls list_directory and gets the tree lines', async () => {
    const res = await listDirectory();
    assert.ok(!res.isError);
    assert.equal(res.content[0].text, '[DIR] sub\n[FILE] sub/inner.txt\n[FILE] top.txt');
  });

  it('gets a tool error naming the argument and its bounds', async () => {
    const res = await listDirectory('depth=99');
    assert.equal(res.isError, true);
    assert.match(res.content[0].text, /depth/);
    assert.match(res.content[0].text, /10/);
  });
});
