// The doors of a real `fleetls serve --http` (issue 18): a token always (--no-auth the one
// explicit, loopback-only exception), the Origin exactly this server's or allow-listed, no
// localhost an inventory does not name (and errors naming only selectable hosts), and control
// characters in arguments refused on MCP, the Fleet API and the CLI before any host is asked.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeTree } from '@fleetls/testkit';
import { fleetls } from '../helpers/cli.js';
import { type GatewayProcess, type HttpGateway, startGateway, startHttpGateway } from '../helpers/gateway-process.js';
import { callTool, post, rpcResult } from '../helpers/mcp-post.js';
import { suiteFixture } from '../helpers/suite-fixture.js';

const TOKEN = 'http-doors-token-0123456789';

const auth = { authorization: `Bearer ${TOKEN}` };
const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'doors', version: '1' } },
};
/** A TCP listener standing in for an agent: counts every connection, never answers. */
async function countingAgent(): Promise<{ server: Server; address: string; connections: () => number }> {
  let n = 0;
  const server = createServer((s) => {
    n++;
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { server, address: `127.0.0.1:${port}`, connections: () => n };
}

/**
 * The exit code of a gateway expected to refuse to start; 'served' (and it is stopped) when it
 * listened instead, so a defence that gives way fails the test at once rather than hanging it.
 */
async function refusal(gw: GatewayProcess, listening = /MCP over HTTP at (\S+)/): Promise<number | null | 'served'> {
  const exited = new Promise<number | null>((resolve) => {
    if (gw.child.exitCode !== null) resolve(gw.child.exitCode);
    else gw.child.once('exit', (code) => resolve(code));
  });
  const served = gw.waitFor(listening).then(
    () => 'served' as const,
    () => new Promise<never>(() => {}),
  );
  const first = await Promise.race([exited, served]);
  if (first === 'served') await gw.stop();
  return first;
}

/**
 * For one describe block: a scratch directory with a tree (sub/a.log), and the gateway `serve`
 * starts over them before the block's tests; after them the gateway stops and the directory goes.
 */
function servedTree(prefix: string, serve: (tmp: string, tree: string) => Promise<HttpGateway>) {
  const tmp = mkdtempSync(join(tmpdir(), prefix));
  const tree = join(tmp, 'tree');
  const http = suiteFixture(
    () => serve(tmp, makeTree(tree, { 'sub/a.log': 'a' })),
    ({ gateway }) => gateway.stop(),
  );
  after(() => rmSync(tmp, { recursive: true, force: true }));
  return { tmp, tree, http };
}

describe('serve --http refuses to start open', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'fleetls-doors-start-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('without a token on loopback, with --no-auth off loopback, and without --allow or an inventory', async () => {
    const cases: [string[], Record<string, string>, RegExp][] = [
      [['--http', '127.0.0.1:0', '--allow', tmp], {}, /without a bearer token: give one with --token-file/],
      [['--http', '0.0.0.0:0', '--allow', tmp, '--no-auth'], {}, /--no-auth .* refused on 0\.0\.0\.0/],
      [['--http', '127.0.0.1:0'], { FLEETLS_TOKEN: TOKEN }, /without an inventory serves this machine .* --allow DIR/],
      [['--http', '127.0.0.1:0', '--allow', 'rel/dir'], { FLEETLS_TOKEN: TOKEN }, /--allow\[0\]: expected an absolute/],
    ];
    for (const [args, env, why] of cases) {
      const gw = startGateway(args, { FLEETLS_INVENTORY: '', ...env }, { cwd: tmp });
      const code = await refusal(gw);
      assert.equal(code, 2, `${args.join(' ')}: ${gw.stderr()}`);
      assert.match(gw.stderr(), why);
      assert.doesNotMatch(gw.stderr(), /MCP over HTTP at/);
    }
  });

  it('--grpc too: a token or client certificates on loopback, --no-auth on loopback only', async () => {
    const cases: [string[], RegExp][] = [
      [
        ['--grpc', '127.0.0.1:0', '--allow', tmp],
        /--grpc: refusing to serve the Fleet API on 127\.0\.0\.1 without authentication/,
      ],
      [['--grpc', '0.0.0.0:0', '--allow', tmp, '--no-auth'], /--no-auth serves the Fleet API .* refused on 0\.0\.0\.0/],
    ];
    for (const [args, why] of cases) {
      const gw = startGateway(args, { FLEETLS_INVENTORY: '' }, { cwd: tmp });
      const code = await refusal(gw, /Fleet API \(gRPC\) at (\S+)/);
      assert.equal(code, 2, `${args.join(' ')}: ${gw.stderr()}`);
      assert.match(gw.stderr(), why);
    }
    const open = startGateway(['--grpc', '127.0.0.1:0', '--allow', tmp, '--no-auth'], { FLEETLS_INVENTORY: '' });
    try {
      await open.waitFor(/Fleet API \(gRPC\) at (\S+) \(plaintext, no auth: --no-auth/);
      assert.match(open.stderr(), /"level":"warn".*--no-auth: the Fleet API over gRPC has no token/);
    } finally {
      await open.stop();
    }
    const withToken = startGateway(['--grpc', '127.0.0.1:0', '--allow', tmp], {
      FLEETLS_INVENTORY: '',
      FLEETLS_TOKEN: TOKEN,
    });
    try {
      await withToken.waitFor(/Fleet API \(gRPC\) at (\S+) \(plaintext, bearer token required\)/);
    } finally {
      await withToken.stop();
    }
  });

  it('--no-auth on loopback runs open, and says so at start', async () => {
    const gw = startGateway(['--http', '127.0.0.1:0', '--allow', tmp, '--no-auth'], { FLEETLS_INVENTORY: '' });
    try {
      const url = await gw.waitFor(/MCP over HTTP at (\S+) \(no auth: --no-auth/);
      assert.match(gw.stderr(), /"level":"warn".*--no-auth: no bearer token/);
      assert.equal((await post(url, '/mcp', INIT)).status, 200);
    } finally {
      await gw.stop();
    }
  });
});

describe('serve --http without an inventory, with --allow DIR', () => {
  const { tmp, tree, http } = servedTree('fleetls-doors-allow-', (tmp, tree) => {
    writeFileSync(join(tmp, 'beside.txt'), 'outside the root');
    return startHttpGateway(['--allow', tree], { FLEETLS_INVENTORY: '', FLEETLS_TOKEN: TOKEN });
  });

  it('serves localhost under DIR only: its tree answers, / and a sibling of DIR are refused', async () => {
    const listed = rpcResult(
      (await post(http().base, '/mcp', callTool('list_directory', { host: 'localhost', path: tree }), auth)).text,
    );
    assert.equal(listed.isError, undefined, listed.content[0].text);
    assert.equal(listed.content[0].text, '[DIR] sub\n[FILE] sub/a.log');
    for (const path of ['/etc', '/etc/passwd', join(tmp, 'beside.txt'), `${tree}/../beside.txt`]) {
      const tool = path.endsWith('/etc') ? 'list_directory' : 'stat';
      const r = rpcResult((await post(http().base, '/mcp', callTool(tool, { host: 'localhost', path }), auth)).text);
      const text = JSON.stringify(r);
      assert.match(
        text,
        new RegExp(`outside the allowed roots \\(${tree.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)`),
        path,
      );
      const hosts = (r.structuredContent as { hosts: { status: string }[] }).hosts;
      assert.deepEqual(
        hosts.map((h) => h.status),
        ['denied'],
        path,
      );
      // Refused before anything was read: no metadata of the outside file in the answer.
      assert.doesNotMatch(text, /"(size|uid|mode|mtime|inode)":/, path);
    }
  });
});

describe('serve --http with an inventory that does not name localhost', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'fleetls-doors-'));
  let agent: Awaited<ReturnType<typeof countingAgent>>;
  let gw: GatewayProcess;
  let base: string;
  let port: string;

  before(async () => {
    agent = await countingAgent();
    const inventory = join(tmp, 'fleetls.yaml');
    writeFileSync(
      inventory,
      `hosts:\n  web-1: { agent: "${agent.address}" }\nagent_tls: insecure\ncors_origins: [https://dash.example]\n`,
    );
    ({ gateway: gw, base } = await startHttpGateway([], { FLEETLS_INVENTORY: inventory, FLEETLS_TOKEN: TOKEN }));
    port = new URL(base).port;
  });
  after(async () => {
    await gw?.stop();
    agent?.server.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('has no localhost: unknown, not in list_hosts, and errors name only selectable hosts', async () => {
    const r = rpcResult(
      (await post(base, '/mcp', callTool('stat', { host: 'localhost', path: '/etc/shadow' }), auth)).text,
    );
    assert.equal(r.isError, true);
    assert.match(r.content[0].text, /unknown host 'localhost'; known hosts: web-1$/);
    const hosts = rpcResult((await post(base, '/mcp', callTool('list_hosts', {}), auth)).text);
    assert.deepEqual(
      (hosts.structuredContent as { hosts: { host: string }[] }).hosts.map((h) => h.host),
      ['web-1'],
    );
  });

  it('answers only its own origin (scheme, host, port) and the allow-listed one', async () => {
    const init = (headers: Record<string, string>) => post(base, '/mcp', INIT, { ...auth, ...headers });
    const foreign = [
      'http://127.0.0.1:9999',
      'http://127.0.0.1',
      `https://127.0.0.1:${port}`,
      `http://localhost:${port}`,
      'http://evil.example',
      'null',
      'https://dash.example:8443',
    ];
    for (const origin of foreign) {
      const r = await init({ origin });
      assert.equal(r.status, 403, origin);
      assert.match(r.text, /is not this server/);
    }
    const rebinding = await init({ host: `evil.example:${port}`, origin: `http://evil.example:${port}` });
    assert.equal(rebinding.status, 403);
    assert.match(rebinding.text, /Host header must name a loopback address/);
    assert.equal((await init({ origin: `http://127.0.0.1:${port}` })).status, 200);
    const listed = await init({ origin: 'https://dash.example' });
    assert.equal(listed.status, 200, 'cors_origins of the inventory');
    assert.equal(listed.headers['access-control-allow-origin'], 'https://dash.example');
    assert.equal((await post(base, '/mcp', INIT)).status, 401, 'and the token still');
  });

  it('refuses control characters in any argument on MCP and the Fleet API, naming it, before any host is asked', async () => {
    const before = agent.connections();
    const mcp: [string, Record<string, unknown>, string][] = [
      ['list_files', { host: 'web-1', path: '/srv', name: 'a\u0000b' }, 'name'],
      ['list_files', { host: 'web-1', path: '/srv', pattern: '*\n*' }, 'pattern'],
      ['list_files', { host: 'web-1', path: '/srv', owner: 'ro\u0007ot' }, 'owner'],
      ['list_files', { host: 'web-1', path: '/srv', cursor: 'x\u0000' }, 'cursor'],
      ['list_directory', { host: 'web-1', path: '/s\u001brv' }, 'path'],
      ['stat', { host: 'web\u0000-1', path: '/srv' }, 'host'],
    ];
    for (const [tool, args, arg] of mcp) {
      const r = rpcResult((await post(base, '/mcp', callTool(tool, args), auth)).text);
      assert.equal(r.isError, true, `${tool} ${arg}`);
      assert.match(r.content[0].text, new RegExp(`${arg} must not contain control characters`), `${tool} ${arg}`);
    }
    const api: [string, Record<string, unknown>, string][] = [
      ['ListFiles', { host: 'web-1', path: '/srv', name: 'a\u0000b' }, 'name'],
      ['ListFiles', { host: 'web-1', path: '/srv', group: 'wh\teel' }, 'group'],
      ['ListDirectory', { host: 'web-1', path: '/srv\u0000/x' }, 'path'],
    ];
    for (const [rpc, body, arg] of api) {
      const r = await post(base, `/fleetls.v1.Fleet/${rpc}`, body, auth);
      assert.equal(r.status, 400, `${rpc} ${arg}: ${r.text}`);
      const err = JSON.parse(r.text) as { code: string; message: string };
      assert.equal(err.code, 'invalid_argument');
      assert.match(err.message, new RegExp(`${arg} must not contain control characters`));
    }
    assert.equal(agent.connections(), before, 'no host was asked');
  });

  it('the CLI refuses them too, exit 2, before any host is asked', async () => {
    const before = agent.connections();
    const env = { FLEETLS_INVENTORY: join(tmp, 'fleetls.yaml') };
    const runs: [string[], RegExp][] = [
      [['ls', 'web-1:/srv', '--name', 'a\nb'], /name must not contain control characters/],
      [
        ['tree', 'web-1:/s\u001brv'],
        /PATH must not contain control characters|path must not contain control characters/,
      ],
      [['ls', 'web-1:/srv', '--owner', 'r\u0001oot'], /owner must not contain control characters/],
    ];
    for (const [args, why] of runs) {
      const r = await fleetls(args, { cwd: tmp, env });
      assert.equal(r.code, 2, `${JSON.stringify(args)}: ${r.stderr}`);
      assert.match(r.stderr, why);
    }
    assert.equal(agent.connections(), before, 'no host was asked');
  });
});

describe('serve --http with an inventory that names localhost', () => {
  const { tree, http } = servedTree('fleetls-doors-local-', (tmp, tree) => {
    const inventory = join(tmp, 'fleetls.yaml');
    writeFileSync(inventory, `hosts:\n  localhost: { embedded: { allow: ["${tree}"] }, labels: { role: web } }\n`);
    return startHttpGateway([], { FLEETLS_INVENTORY: inventory, FLEETLS_TOKEN: TOKEN });
  });

  it('is a host like any other: in list_hosts and all, under its own roots only', async () => {
    const hosts = rpcResult((await post(http().base, '/mcp', callTool('list_hosts', {}), auth)).text);
    assert.deepEqual(
      (hosts.structuredContent as { hosts: { host: string; transport: string }[] }).hosts.map((h) => [
        h.host,
        h.transport,
      ]),
      [['localhost', 'embedded']],
    );
    const listed = rpcResult(
      (await post(http().base, '/mcp', callTool('list_directory', { host: 'all', path: tree }), auth)).text,
    );
    assert.equal(listed.content[0].text, '[DIR] sub\n[FILE] sub/a.log');
    const shadow = rpcResult(
      (await post(http().base, '/mcp', callTool('stat', { host: 'localhost', path: '/etc/passwd' }), auth)).text,
    );
    assert.match(JSON.stringify(shadow), /denied|outside the allowed roots/);
    assert.doesNotMatch(JSON.stringify(shadow), /"owner":"root"/);
  });
});
