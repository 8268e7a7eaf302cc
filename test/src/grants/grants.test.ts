// Principals with grants (issue 36), through a real `fleetls serve --http --grpc --grants FILE`
// in front of real agents: team-a may call list_files and stat on @web under <tmp>/log,
// team-b everything. Each face refuses what team-a may not do before any host is asked,
// naming what it may do: MCP over HTTP (SDK clients), the Fleet API over Connect on the HTTP
// port and over gRPC. `all` is narrowed and says so; tools/list shows team-a two tools; a
// ranked page kept for team-b is refused to team-a (issue 35 I2); every call is an audit line;
// a principal past its rate gets 429 / RESOURCE_EXHAUSTED; the file reloads when it changes
// and on SIGHUP, and a malformed one keeps the last good grants.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Code, ConnectError, createClient, type Interceptor } from '@connectrpc/connect';
import { createConnectTransport, createGrpcTransport } from '@connectrpc/connect-node';
import { Fleet } from '@fleetls/proto/fleet_pb';
import { waitFor } from '@fleetls/testkit';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { fleetls } from '../helpers/cli.js';
import { type GatewayProcess, httpClient, startGateway, stdioClient } from '../helpers/gateway-process.js';
import {
  type GrantsFleet,
  grantsYaml,
  rpcCode,
  startGrantsFleet,
  TOKEN_A,
  TOKEN_B,
  TOKEN_C,
} from '../helpers/grants-fleet.js';
import { type SlowFleet, startSlowFleet } from '../helpers/slow-agents.js';

const bearer =
  (token: string | undefined): Interceptor =>
  (next) =>
  (req) => {
    if (token) req.header.set('authorization', `Bearer ${token}`);
    return next(req);
  };

function text(r: CallToolResult): string {
  return r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

describe('grants: two principals over MCP HTTP, Connect and gRPC', () => {
  let fleet: GrantsFleet;
  let gw: GatewayProcess;
  let url: string;
  let base: string;
  let grpcAt: string;
  let a: Client;
  let b: Client;
  const audit: Record<string, unknown>[] = [];

  before(async () => {
    fleet = await startGrantsFleet();
    gw = startGateway(['--http', '127.0.0.1:0', '--grpc', '127.0.0.1:0', '--grants', fleet.grants], {
      FLEETLS_INVENTORY: fleet.inventory,
    });
    url = await gw.waitFor(/MCP over HTTP at (http:\/\/\S+)/);
    base = url.replace(/\/mcp$/, '');
    grpcAt = await gw.waitFor(/Fleet API \(gRPC\) at (\S+)/);
    gw.stderrLines((line) => {
      if (line.includes('"audit":"tool"')) audit.push(JSON.parse(line));
    });
    a = await httpClient(url, TOKEN_A, 'team-a');
    b = await httpClient(url, TOKEN_B, 'team-b');
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await gw?.stop();
    await fleet?.close();
  });

  const call = (c: Client, name: string, args: Record<string, unknown>) =>
    c.callTool({ name, arguments: args }) as Promise<CallToolResult>;
  const hostsOf = (r: CallToolResult) =>
    (r.structuredContent as { hosts: { host: string; status: string }[] }).hosts.map((h) => `${h.host}:${h.status}`);

  it('shows team-a only the two tools it may call, team-b every tool', async () => {
    assert.deepEqual((await a.listTools()).tools.map((t) => t.name).sort(), ['list_files', 'stat']);
    assert.equal((await b.listTools()).tools.length, 8);
  });

  it('lets team-a list its root on @web, and narrows `all` to @web, saying so', async () => {
    const ok = await call(a, 'list_files', { host: '@web', path: fleet.log, type: 'any' });
    assert.equal(ok.isError, undefined, text(ok));
    assert.deepEqual(hostsOf(ok), ['web-1:ok', 'web-2:ok']);
    const all = await call(a, 'list_files', { host: 'all', path: fleet.log });
    assert.equal(all.isError, undefined, text(all));
    assert.deepEqual(hostsOf(all), ['web-1:ok', 'web-2:ok']);
    assert.match(
      (all.structuredContent as { narrowed: string }).narrowed,
      /^host 'all' narrowed to the 2 hosts team-a may ask \(@web\)$/,
    );
    assert.match(text(all), /^\[GRANT\] host 'all' narrowed/);
    const st = await call(a, 'stat', { host: 'web-2', path: `${fleet.log}/nginx/access.log` });
    assert.equal(st.isError, undefined, text(st));
  });

  it('refuses team-a a tool, a host and a path outside its grant, naming what it may do', async () => {
    const may = `team-a may call list_files, stat on hosts @web under ${fleet.log}`;
    const cases: [string, Record<string, unknown>, string][] = [
      ['list_directory', { host: 'web-1', path: fleet.log }, 'team-a may not call list_directory'],
      ['disk_usage', { host: 'web-1', path: fleet.log }, 'team-a may not call disk_usage'],
      ['stat', { host: 'db-1', path: fleet.log }, "host 'db-1' is outside team-a's hosts"],
      ['list_files', { host: 'web-1,db-1', path: fleet.log }, "host 'db-1' is outside team-a's hosts"],
      ['list_files', { host: '@db', path: fleet.log }, "host '@db' reaches no host team-a may ask"],
      ['stat', { host: 'web-1', path: `${fleet.etc}/secret.conf` }, `path '${fleet.etc}/secret.conf' is outside`],
      ['list_files', { host: 'web-1', path: `${fleet.log}/../etc` }, `path '${fleet.log}/../etc' is outside`],
      ['list_files', { host: 'web-1', path: fleet.root }, `path '${fleet.root}' is outside`],
    ];
    for (const [tool, args, why] of cases) {
      const r = await call(a, tool, args);
      assert.equal(r.isError, true, `${tool} ${JSON.stringify(args)}: ${text(r)}`);
      assert.ok(text(r).startsWith(`permission_denied: ${why}`), text(r));
      assert.ok(text(r).endsWith(`; ${may}`), text(r));
    }
    // Nothing of the secret reached team-a: no host was asked.
    const refused = audit.filter((l) => l.principal === 'team-a' && l.decision === 'refused');
    assert.ok(refused.length >= cases.length, `${refused.length} refused audit lines`);
    assert.ok(refused.every((l) => (l.hostsOk as unknown[]).length === 0 && l.outcome === 'permission_denied'));
  });

  it('lets team-b call everything everywhere', async () => {
    const r = await call(b, 'list_directory', { host: 'all', path: fleet.root, depth: 1 });
    assert.equal(r.isError, undefined, text(r));
    assert.deepEqual(hostsOf(r), ['web-1:ok', 'web-2:ok', 'db-1:ok']);
    assert.equal((r.structuredContent as { narrowed?: string }).narrowed, undefined);
    const st = await call(b, 'stat', { host: 'db-1', path: `${fleet.etc}/secret.conf` });
    assert.equal(st.isError, undefined, text(st));
  });

  it('refuses team-a a ranked page kept for team-b (issue 35 I2), which team-b pages on', async () => {
    const args = { host: '@web', path: fleet.log, order_by: 'size', type: 'file', limit: 1 };
    const first = await call(b, 'list_files', args);
    const c1 = (first.structuredContent as { next_cursor: string }).next_cursor;
    // Following a cursor keeps the ranking behind a handle in the next one.
    const second = await call(b, 'list_files', { ...args, cursor: c1 });
    const c2 = (second.structuredContent as { next_cursor: string }).next_cursor;
    assert.ok(c2, text(second));
    const stolen = await call(a, 'list_files', { ...args, cursor: c2 });
    assert.equal(stolen.isError, true, text(stolen));
    assert.match(text(stolen), /^permission_denied: cursor: the page it continues belongs to another caller/);
    const third = await call(b, 'list_files', { ...args, cursor: c2 });
    assert.equal(third.isError, undefined, text(third));
  });

  it('writes one audit line per call: principal, tool, selector, hosts, path, decision and why', async () => {
    await call(a, 'list_files', { host: 'all', path: fleet.log });
    const line = await waitFor(() =>
      audit.findLast((l) => l.principal === 'team-a' && l.decision === 'narrowed' && l.tool === 'list_files'),
    );
    assert.equal(line.selector, 'all');
    assert.equal(line.path, fleet.log);
    assert.deepEqual(line.hostsOk, ['web-1', 'web-2']);
    assert.match(String(line.why), /narrowed to the 2 hosts team-a may ask/);
    assert.equal(line.caller, 'http:grant:team-a');
  });

  it('refuses an unknown token with 401, and the Fleet API as UNAUTHENTICATED', async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: 'Bearer not-a-token',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(res.status, 401);
    await gw.waitFor(
      /"audit":"door","decision":"refused","status":401,"why":"missing or unknown bearer token","path":"\/mcp"/,
    );
    const anon = createClient(Fleet, createGrpcTransport({ baseUrl: `http://${grpcAt}` }));
    assert.equal(await rpcCode(anon.listHosts({ host: 'all' })), Code.Unauthenticated);
    const wrong = createClient(
      Fleet,
      createGrpcTransport({ baseUrl: `http://${grpcAt}`, interceptors: [bearer('not-a-token')] }),
    );
    assert.equal(await rpcCode(wrong.listHosts({ host: 'all' })), Code.Unauthenticated);
  });

  for (const face of ['Connect on the HTTP port', 'gRPC'] as const) {
    it(`holds the Fleet API (${face}) to the same grants: PERMISSION_DENIED outside them`, async () => {
      const transport = (token: string) =>
        face === 'gRPC'
          ? createGrpcTransport({ baseUrl: `http://${grpcAt}`, interceptors: [bearer(token)] })
          : createConnectTransport({ baseUrl: base, httpVersion: '1.1', interceptors: [bearer(token)] });
      const fa = createClient(Fleet, transport(TOKEN_A));
      const fb = createClient(Fleet, transport(TOKEN_B));
      let narrowed: string | null = null;
      const files = await fa.listFiles(
        { host: 'all', path: fleet.log, type: 'any' },
        { onHeader: (h) => (narrowed = h.get('fleetls-narrowed')) },
      );
      assert.deepEqual(
        files.hosts.map((h) => h.host),
        ['web-1', 'web-2'],
      );
      // The wire messages have no field for it: a response header says so.
      assert.equal(narrowed, "host 'all' narrowed to the 2 hosts team-a may ask (@web)");
      assert.equal(await rpcCode(fa.listDirectory({ host: 'web-1', path: fleet.log })), Code.PermissionDenied);
      assert.equal(await rpcCode(fa.listHosts({ host: 'all' })), Code.PermissionDenied);
      assert.equal(await rpcCode(fa.stat({ host: 'db-1', path: fleet.log })), Code.PermissionDenied);
      assert.equal(await rpcCode(fa.stat({ host: 'web-1', path: `${fleet.etc}/secret.conf` })), Code.PermissionDenied);
      // The stream is the tree tool's: team-a may not call it.
      const walk = (async () => {
        for await (const _ of fa.walk({ host: 'web-1', path: fleet.log })) break;
      })();
      assert.equal(await rpcCode(walk), Code.PermissionDenied);
      try {
        await fa.listDirectory({ host: 'web-1', path: fleet.log });
      } catch (err) {
        assert.match(ConnectError.from(err).rawMessage, /team-a may call list_files, stat on hosts @web under/);
      }
      const tree = await fb.listDirectory({ host: 'all', path: fleet.root, depth: 1 });
      assert.deepEqual(
        tree.hosts.map((h) => `${h.host}`),
        ['web-1', 'web-2', 'db-1'],
      );
    });
  }

  it('holds a principal to its rate: 429 with Retry-After on the HTTP port, RESOURCE_EXHAUSTED over gRPC', async () => {
    // team-c may make 3 calls a minute; its bucket is one, whichever face it calls through.
    const c = createClient(
      Fleet,
      createGrpcTransport({ baseUrl: `http://${grpcAt}`, interceptors: [bearer(TOKEN_C)] }),
    );
    await c.listHosts({ host: 'all' });
    await c.listHosts({ host: 'all' });
    const post = () =>
      fetch(`${base}/fleetls.v1.Fleet/ListHosts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN_C}`, 'content-type': 'application/json' },
        body: JSON.stringify({ host: 'all' }),
      });
    assert.equal((await post()).status, 200);
    const limited = await post();
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    assert.match(await limited.text(), /team-c may make 3 a minute/);
    assert.equal(await rpcCode(c.listHosts({ host: 'all' })), Code.ResourceExhausted);
  });

  it('reloads the file when it changes and on SIGHUP; a malformed file keeps the last good grants', async () => {
    const rotated = 'grants-team-a-rotated-0123456789';
    const listWith = (token: string) =>
      rpcCode(
        createClient(Fleet, createGrpcTransport({ baseUrl: `http://${grpcAt}`, interceptors: [bearer(token)] })).stat({
          host: 'web-1',
          path: fleet.log,
        }),
      );
    assert.equal(await listWith(rotated), Code.Unauthenticated);
    fleet.writeGrants(fleet.grants, { extraTokenA: rotated });
    await waitFor(async () => (await listWith(rotated)) === 'ok', { what: 'the rotated token accepted' });
    fs.writeFileSync(fleet.grants, 'principals:\n  team-a:\n    tokens: [plain-token]\n');
    await gw.waitFor(
      /principals\.team-a\.tokens\[0\]: expected ..sha256:.*grants file not reloaded: keeping the last good/,
    );
    assert.equal(await listWith(rotated), 'ok');
    assert.equal(await listWith(TOKEN_A), 'ok');
    // SIGHUP reads it again (the watch may have done so too: either way the file's grants hold).
    fleet.writeGrants(fleet.grants);
    gw.child.kill('SIGHUP');
    await waitFor(async () => (await listWith(rotated)) === Code.Unauthenticated, { what: 'the old token refused' });
    assert.match(gw.stderr(), /"reason":"SIGHUP".*"msg":"grants reloaded"/);
  });
});

describe('grants over MCP stdio: the caller is `local`', () => {
  let fleet: GrantsFleet;
  before(async () => {
    fleet = await startGrantsFleet();
  });
  after(async () => fleet?.close());

  it("holds stdio to the file's `local` (team-a's grant here): two tools, `all` narrowed, the rest refused", async () => {
    const file = `${fleet.root}/grants-local.yaml`;
    fleet.writeGrants(file, { local: true });
    const { client } = await stdioClient(
      'stdio-local',
      { FLEETLS_INVENTORY: fleet.inventory },
      { args: ['--grants', file] },
    );
    try {
      assert.deepEqual((await client.listTools()).tools.map((t) => t.name).sort(), ['list_files', 'stat']);
      const all = (await client.callTool({
        name: 'list_files',
        arguments: { host: 'all', path: fleet.log },
      })) as CallToolResult;
      assert.equal(all.isError, undefined, text(all));
      assert.match((all.structuredContent as { narrowed: string }).narrowed, /narrowed to the 2 hosts local may ask/);
      const refused = (await client.callTool({
        name: 'list_directory',
        arguments: { host: 'web-1', path: fleet.log },
      })) as CallToolResult;
      assert.match(
        text(refused),
        /^permission_denied: local may not call list_directory; local may call list_files, stat/,
      );
      const outside = (await client.callTool({
        name: 'stat',
        arguments: { host: 'web-1', path: fleet.etc },
      })) as CallToolResult;
      assert.match(text(outside), /^permission_denied: path '.*\/etc' is outside local's roots/);
    } finally {
      await client.close();
    }
  });

  it('lets stdio call everything when the file does not name `local`', async () => {
    const { client } = await stdioClient(
      'stdio-all',
      { FLEETLS_INVENTORY: fleet.inventory },
      { args: ['--grants', fleet.grants] },
    );
    try {
      assert.equal((await client.listTools()).tools.length, 8);
      const r = (await client.callTool({
        name: 'list_directory',
        arguments: { host: 'all', path: fleet.root, depth: 1 },
      })) as CallToolResult;
      assert.equal(r.isError, undefined, text(r));
      assert.equal((r.structuredContent as { narrowed?: string }).narrowed, undefined);
    } finally {
      await client.close();
    }
  });
});

describe("grants: the CLI runs as `local` of the inventory's grants file", () => {
  let fleet: GrantsFleet;
  let inventory: string;
  before(async () => {
    fleet = await startGrantsFleet();
    const file = `${fleet.root}/grants-local.yaml`;
    fleet.writeGrants(file, { local: true });
    inventory = `${fleet.root}/fleetls-granted.yaml`;
    fs.writeFileSync(inventory, `${fs.readFileSync(fleet.inventory, 'utf8')}grants: grants-local.yaml\n`);
  });
  after(async () => fleet?.close());

  it("narrows `all`, and refuses a tool, host or path outside local's grant, naming it", async () => {
    const env = { FLEETLS_INVENTORY: inventory };
    const ok = await fleetls(['ls', `all:${fleet.log}`], { env });
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /web-1\s+a\.log/);
    assert.doesNotMatch(ok.stdout, /db-1/);
    assert.match(ok.stderr, /host 'all' narrowed to the 2 hosts local may ask \(@web\)/);
    for (const [args, why] of [
      [['tree', `web-1:${fleet.log}`], 'local may not call list_directory'],
      [['ls', `db-1:${fleet.log}`], "host 'db-1' is outside local's hosts"],
      [['stat', `web-1:${fleet.etc}/secret.conf`], `path '${fleet.etc}/secret.conf' is outside local's roots`],
    ] as const) {
      const r = await fleetls([...args], { env });
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
      assert.ok(
        r.stderr.includes(`fleetls: ${why}; local may call list_files, stat on hosts @web under ${fleet.log}`),
        r.stderr,
      );
      assert.equal(r.stdout, '');
    }
  });
});

describe('grants: a scan belongs to its principal', () => {
  // Host slow-0 answers at once, slow-1 after 20 s: a fan-out call answers past its 1 s deadline as a scan.
  let slow: SlowFleet;
  let gw: GatewayProcess;
  let a: Client;
  let b: Client;
  before(async () => {
    slow = await startSlowFleet({
      tree: { 'f0.log': 'x', 'f1.log': 'xy' },
      delays: [0, 20_000],
      name: (i) => `slow-${i}`,
      defaults: '{ call_deadline_ms: 1000, deadline_ms: 30000, scan_host_deadline_ms: 30000 }',
    });
    const grants = `${slow.work}/grants.yaml`;
    fs.writeFileSync(
      grants,
      grantsYaml({
        'team-a': {
          tokens: [TOKEN_A],
          tools: ['list_files', 'stat', 'scan_status'],
          hosts: ['all'],
          paths: [slow.data],
        },
        'team-b': { tokens: [TOKEN_B], tools: ['*'], hosts: ['all'], paths: ['/'] },
      }),
    );
    gw = startGateway(['--http', '127.0.0.1:0', '--grants', grants], { FLEETLS_INVENTORY: slow.inventory });
    const url = await gw.waitFor(/MCP over HTTP at (http:\/\/\S+)/);
    a = await httpClient(url, TOKEN_A, 'team-a');
    b = await httpClient(url, TOKEN_B, 'team-b');
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await gw?.stop();
    await slow?.close();
  });

  it("refuses team-a team-b's scan cursor, to page it or to ask its status", async () => {
    // A ranked order goes on as a scan (name order pages by resuming walks instead).
    const args = { host: 'all', path: slow.data, order_by: 'size' };
    const first = (await b.callTool({ name: 'list_files', arguments: args })) as CallToolResult;
    const cursor = (first.structuredContent as { next_cursor?: string }).next_cursor;
    assert.match(cursor ?? '', /^scan\./, text(first));
    for (const [tool, call] of [
      ['list_files', { ...args, cursor }],
      ['scan_status', { cursor }],
    ] as const) {
      const r = (await a.callTool({ name: tool, arguments: call })) as CallToolResult;
      assert.equal(r.isError, true, text(r));
      assert.match(text(r), /^permission_denied: cursor names scan [0-9a-f]+, which another caller started/);
    }
    const own = (await b.callTool({ name: 'scan_status', arguments: { cursor } })) as CallToolResult;
    assert.equal(own.isError, undefined, text(own));
  });
});
