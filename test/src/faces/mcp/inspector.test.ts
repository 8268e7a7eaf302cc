// `fleetls serve` driven by the published MCP Inspector CLI: a client nobody on the team wrote.
// inspector-cli 1.0.3 (on the v1 SDK, 2025 revisions), and Inspector 2.12 (on the v2 SDK), whose
// CLI needs Node 22: npx runs it on npm's `node` package, as the conformance step does.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { TOOLS } from '@fleetls/gateway';
import { assertConforms } from '@fleetls/gateway/testing';
import { REPO_ROOT } from '../../helpers/agent-process.js';
import { GATEWAY_MAIN } from '../../helpers/gateway-process.js';
import {
  driveEveryTool,
  type McpFleetFixture,
  type McpHttpFixture,
  startMcpFleet,
  startMcpHttp,
} from '../../helpers/mcp-fixture.js';

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

/** Inspector 2.12's CLI, and the Node it runs on: the conformance step's, pinned in one place. */
const INSPECTOR_2 = '@modelcontextprotocol/inspector@2.12.0';
const NODE_22 = `node@${JSON.parse(readFileSync(join(REPO_ROOT, 'scripts/conformance/scenarios.json'), 'utf8')).node}`;

/**
 * One tools/call by Inspector 2.12's CLI on 2026-07-28 (`--protocol-era modern`: no fallback to
 * a 2025 revision), its result as JSON. `target`: the server command (stdio) or its URL and headers.
 */
async function inspector2(target: string[], name: string, args: Record<string, unknown>): Promise<unknown> {
  const argv = ['-y', '-p', NODE_22, '-p', INSPECTOR_2, '--', 'mcp-inspector', '--cli', '-q', '--format', 'json'];
  argv.push('--protocol-era', 'modern', ...target, '--method', 'tools/call', '--tool-name', name);
  argv.push('--tool-args-json', JSON.stringify(args));
  // A tool error exits non-zero with the result on stdout all the same.
  const { stdout } = await run('npx', argv, { timeout: 240_000, env: { ...process.env, NO_COLOR: '1' } }).catch(
    (err: { stdout?: string; stderr?: string }) => {
      if (!err.stdout?.includes('{')) throw new Error(`inspector 2.12 failed: ${err.stderr ?? err}`);
      return { stdout: err.stdout };
    },
  );
  const { result } = JSON.parse(stdout.slice(stdout.indexOf('{'))) as { result?: { _meta?: Record<string, unknown> } };
  assert.ok(result, `no result from inspector 2.12: ${stdout.slice(0, 500)}`);
  // A 2026-07-28 server names itself in every result's _meta (a 2025 one never does).
  assert.ok(result._meta?.['io.modelcontextprotocol/serverInfo'], `${name}: not a 2026-07-28 answer`);
  return result;
}

describe('MCP Inspector 2.12 CLI, on 2026-07-28, drives every tool', () => {
  describe('over stdio', () => {
    let fx: McpFleetFixture;
    before(async () => {
      fx = await startMcpFleet();
    });
    after(() => fx?.close());
    it('every tool of the registry answers', async () => {
      const target = ['-e', `FLEETLS_INVENTORY=${fx.inventory}`, process.execPath, GATEWAY_MAIN, 'serve'];
      const driven = await driveEveryTool(fx, (name, args) => inspector2(target, name, args));
      assert.deepEqual(driven.sort(), TOOLS.map((t) => t.name).sort());
    });
  });

  describe('over Streamable HTTP', () => {
    const token = 'inspector-2-token-0123456789';
    let http: McpHttpFixture;
    before(async () => {
      http = await startMcpHttp(token, 'inspector-2');
    });
    after(() => http?.close());
    it('every tool of the registry answers', async () => {
      const target = ['--server-url', http.url, '--transport', 'http', '--header', `Authorization: Bearer ${token}`];
      const driven = await driveEveryTool(http.fleet, (name, args) => inspector2(target, name, args));
      assert.deepEqual(driven.sort(), TOOLS.map((t) => t.name).sort());
    });
  });
});
