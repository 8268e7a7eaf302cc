import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { type CallToolResult, CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { pino } from 'pino';
import { DeadBackend, dir, FakeFleet, file, HangingBackend, MemoryBackend } from '../../testing/fake-fleet.js';
import { linkClient } from '../../testing/mcp-client.js';
import { TOOLS } from '../../tools/registry.js';
import { createMcpServer, MAX_ERROR_CHARS, MAX_INSTRUCTIONS_CHARS } from './server.js';

const logger = pino({ level: 'silent' });

const connect = (fleet: FakeFleet, options = {}) => linkClient(createMcpServer({ fleet, logger, options }));

const tree = (names: string[]) => dir({ r: dir(Object.fromEntries(names.map((n, i) => [n, file((i + 1) * 10)]))) });

function fleet() {
  return new FakeFleet({
    a: new MemoryBackend(tree(['x', 'y'])),
    b: new MemoryBackend(tree(['w', 'z', 'q'])),
    dead: new DeadBackend(),
  });
}

function text(r: CallToolResult): string {
  return r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

test('tools/list: every tool of the registry, read-only, with input and output schemas', async () => {
  const { client, close } = await connect(fleet());
  const { tools } = await client.listTools();
  assert.deepEqual(
    tools.map((t) => t.name),
    TOOLS.map((t) => t.name),
  );
  for (const seed of ['list_directories', 'list_directory', 'list_files', 'list_hosts', 'stat']) {
    assert.ok(
      tools.some((t) => t.name === seed),
      seed,
    );
  }
  for (const t of tools) {
    assert.equal(t.annotations?.readOnlyHint, true, t.name);
    assert.equal(t.annotations?.idempotentHint, true, t.name);
    // Left at the spec's defaults (openWorldHint true; destructiveHint means nothing beside readOnlyHint).
    assert.equal(t.annotations?.openWorldHint ?? true, true, t.name);
    assert.equal('destructiveHint' in (t.annotations ?? {}), false, t.name);
    assert.equal(t.outputSchema?.type, 'object', t.name);
  }
  const lf = tools.find((t) => t.name === 'list_files');
  assert.ok(lf);
  const limit = (lf.inputSchema.properties as Record<string, { minimum?: number; maximum?: number }>).limit;
  assert.deepEqual([limit.minimum, limit.maximum], [1, 5000]);
  assert.deepEqual(lf.inputSchema.required, ['host', 'path']);
  await close();
});

test('list_files over MCP: merged across hosts, structured and text, dead host as a status row', async () => {
  const { client, close } = await connect(fleet());
  const r = (await client.callTool({
    name: 'list_files',
    arguments: { host: 'all', path: '/r', order_by: 'size', sort: 'descending', top_n: 4, type: 'file' },
  })) as CallToolResult;
  assert.equal(r.isError, undefined);
  const sc = r.structuredContent as {
    items: { host: string; name: string; size: number }[];
    hosts: { host: string; status: string }[];
  };
  assert.deepEqual(
    sc.items.map((i) => `${i.host}:${i.name}:${i.size}`),
    ['b:q:30', 'a:y:20', 'b:z:20', 'b:w:10'],
  );
  assert.deepEqual(
    sc.hosts.map((h) => `${h.host}:${h.status}`),
    ['a:ok', 'b:ok', 'dead:unreachable'],
  );
  assert.match(text(r), /^Showing 1-4 of 4 files \(top 4 of 5 found\)/);
  await close();
});

test('bad arguments are tool errors naming the argument and its bounds', async () => {
  const { client, close } = await connect(fleet());
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['list_directory', { host: 'a', path: '/r', depth: 0 }, /depth must be an integer from 1 to 10/],
    ['list_files', { host: 'a', path: '/r', limit: 9999 }, /limit must be an integer from 1 to 5000/],
    ['list_files', { host: 'a', path: '/r', type: 'blob' }, /type must be one of file, directory, symlink, any/],
    ['list_directories', { host: 'a', path: '/r', top_n: 0 }, /top_n must be an integer from 1 to 1000/],
    ['list_directory', { host: 'a', path: 'relative' }, /path must be absolute/],
    ['list_directory', { host: 'a' }, /path is required/],
    ['stat', { host: 'nope', path: '/r' }, /unknown host/],
  ];
  for (const [name, args, re] of cases) {
    const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
    assert.equal(r.isError, true, name);
    assert.match(text(r), re);
  }
  // One style: a wrong type is the gateway's own tool error too, never the SDK's -32602 text.
  const oneStyle: [string, Record<string, unknown>, RegExp][] = [
    [
      'list_directory',
      { host: 'a', path: '/r', depth: 'deep' },
      /^Invalid arguments: depth must be an integer from 1 to 10/,
    ],
    [
      'list_directory',
      { host: 'a', path: '/r', depth: 99 },
      /^Invalid arguments: depth must be an integer from 1 to 10/,
    ],
    ['list_files', { host: 'a', path: 42 }, /^Invalid arguments: path/],
    ['list_files', { host: 'a', path: '/r', max_depth: 1.5 }, /^Invalid arguments: max_depth must be an integer/],
    ['list_hosts', { check: 'yes' }, /^Invalid arguments: check/],
  ];
  for (const [name, args, re] of oneStyle) {
    const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
    assert.equal(r.isError, true, name);
    assert.doesNotMatch(text(r), /-32602|Input validation error/);
    assert.match(text(r), re);
  }
  await close();
});

test('unknown arguments are refused, naming the nearest known one, and every schema says so', async () => {
  const { client, close } = await connect(fleet());
  const { tools } = await client.listTools();
  for (const t of tools) assert.equal(t.inputSchema.additionalProperties, false, t.name);
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['list_files', { host: 'a', path: '/r', maxDepth: 3 }, /\bmaxDepth: unknown argument; did you mean max_depth\?/],
    ['list_files', { host: 'a', path: '/r', bogus: 1 }, /\bbogus: unknown argument; known: host, path, order_by/],
    ['list_directory', { host: 'a', path: '/r', dpeth: 3 }, /\bdpeth: unknown argument; did you mean depth\?/],
    ['list_hosts', { chek: true }, /\bchek: unknown argument; did you mean check\?/],
    ['stat', { host: 'a', path: '/r', follow: true }, /\bfollow: unknown argument; known: host, path$/],
  ];
  for (const [name, args, re] of cases) {
    const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
    assert.equal(r.isError, true, name);
    assert.match(text(r), re);
  }
  // The server keeps serving, and the same call without the stray argument answers.
  const ok = (await client.callTool({ name: 'list_files', arguments: { host: 'a', path: '/r' } })) as CallToolResult;
  assert.equal(ok.isError, undefined);
  await close();
});

test('instructions fit what Claude Code keeps of them (2,048 characters), the essentials first', async () => {
  const { client, close } = await connect(fleet());
  const words = client.getInstructions() ?? '';
  assert.ok(words.length > 0 && words.length <= MAX_INSTRUCTIONS_CHARS, `${words.length} characters`);
  // What a model needs before anything else: what it lists, and how `host` names hosts.
  assert.match(words.slice(0, 300), /lists directories across a fleet/);
  assert.match(words.slice(0, 300), /`host`/);
  assert.match(words, /next_cursor/);
  await close();
});

test('error text is at most 8,000 characters, saying it was cut', async () => {
  const { client, close } = await connect(fleet());
  // 2,000 unknown arguments: one clause each, about 200,000 characters of error before the cut.
  const args: Record<string, unknown> = { host: 'a', path: '/r' };
  for (let i = 0; i < 2000; i++) args[`unknown_argument_${i}`] = i;
  const r = (await client.callTool({ name: 'list_files', arguments: args })) as CallToolResult;
  assert.equal(r.isError, true);
  const t = text(r);
  assert.ok(t.length <= MAX_ERROR_CHARS, `${t.length} characters`);
  assert.match(t, /^Invalid arguments: unknown_argument_0: unknown argument/);
  assert.match(t, /error cut at 8000 characters of \d+\)$/);
  await close();
});

test('every parameter of every tool is described', async () => {
  const { client, close } = await connect(fleet());
  const { tools } = await client.listTools();
  const bare = tools.flatMap((t) =>
    Object.entries((t.inputSchema.properties ?? {}) as Record<string, { description?: string }>)
      .filter(([, p]) => !p.description)
      .map(([k]) => `${t.name}.${k}`),
  );
  assert.deepEqual(bare, []);
  await close();
});

test('rows carry `host` exactly when several hosts were asked, on every tool', async () => {
  const nested = () => dir({ r: dir({ d: dir({ f: file(10) }, { du: 4096 }), g: file(20) }) });
  const { client, close } = await connect(
    new FakeFleet({ a: new MemoryBackend(nested()), b: new MemoryBackend(nested()) }),
  );
  // Per-host records (statuses, stat's results, disk_usage's path totals) name their host always;
  // list_directory's `dirs` is its rows' directory table, paths only.
  const RECORDS = new Set(['hosts', 'truncations', 'notes', 'results', 'path_totals', 'columns', 'dirs']);
  const rowsOf = (s: Record<string, unknown>) =>
    Object.entries(s).flatMap(([k, v]) =>
      RECORDS.has(k) || !Array.isArray(v) ? [] : (v as Record<string, unknown>[]),
    );
  for (const name of ['list_directory', 'list_files', 'list_directories', 'disk_usage']) {
    for (const [host, multi] of [
      ['a', false],
      ['a,b', true],
    ] as const) {
      const r = (await client.callTool({ name, arguments: { host, path: '/r' } })) as CallToolResult;
      assert.equal(r.isError, undefined, `${name} ${host}: ${text(r)}`);
      const rows = rowsOf(r.structuredContent as Record<string, unknown>);
      assert.ok(rows.length > 0, `${name} ${host}: rows`);
      for (const row of rows) assert.equal('host' in row, multi, `${name} ${host}: ${JSON.stringify(row)}`);
    }
  }
  await close();
});

test('progress: hosts done of total, at most one notification a second', async () => {
  const { client, close } = await connect(fleet());
  const seen: { progress: number; total?: number }[] = [];
  await client.callTool({ name: 'list_directory', arguments: { host: 'all', path: '/r' } }, CallToolResultSchema, {
    onprogress: (p) => seen.push({ progress: p.progress, total: p.total }),
  });
  // The three hosts answer within a second: the first host's count goes out, the rest wait
  // for the second to pass, and the answer came first (no progress after it).
  assert.deepEqual(seen, [{ progress: 1, total: 3 }]);
  await close();
});

test('progress keeps flowing while a host walks, rising with each beat', async () => {
  const hang = new HangingBackend();
  const { client, close } = await linkClient(
    createMcpServer({
      fleet: new FakeFleet({ slow: hang, a: new MemoryBackend(tree(['x'])) }),
      logger,
      progressIntervalMs: 10,
    }),
  );
  const seen: number[] = [];
  const ctrl = new AbortController();
  let enough: () => void = () => {};
  const beats = new Promise<void>((resolve) => {
    enough = resolve;
  });
  const call = client
    .callTool({ name: 'list_directory', arguments: { host: 'all', path: '/r' } }, CallToolResultSchema, {
      signal: ctrl.signal,
      onprogress: (p) => {
        seen.push(p.progress);
        if (seen.length >= 4) enough();
      },
    })
    .catch(() => undefined);
  await beats;
  ctrl.abort();
  await call;
  // Before the hung host answers: host a's count, and beats in between that only rise.
  assert.ok(
    seen.every((p, i) => i === 0 || p > seen[i - 1]),
    seen.join(', '),
  );
  assert.ok(
    seen.every((p) => p < 2),
    seen.join(', '),
  );
  await close();
});

test("the client's cancellation reaches every in-flight host", async () => {
  const h1 = new HangingBackend();
  const h2 = new HangingBackend();
  const { client, close } = await connect(new FakeFleet({ h1, h2 }));
  const ctrl = new AbortController();
  const call = client.callTool({ name: 'list_files', arguments: { host: 'all', path: '/r' } }, CallToolResultSchema, {
    signal: ctrl.signal,
  });
  await Promise.all([h1.whenCalled(), h2.whenCalled()]);
  ctrl.abort('user pressed stop');
  await assert.rejects(call);
  for (let i = 0; i < 50 && h1.aborts + h2.aborts < 2; i++) await new Promise((r) => setTimeout(r, 5));
  assert.equal(h1.aborts, 1);
  assert.equal(h2.aborts, 1);
  await close();
});

test('the whole result (text and structuredContent) stays within the byte budget, cut at the same row', async () => {
  const names = Array.from({ length: 3000 }, (_, i) => `entry-${String(i).padStart(5, '0')}`);
  const { client, close } = await connect(new FakeFleet({ a: new MemoryBackend(tree(names)) }), {
    maxAnswerBytes: 8192,
  });
  for (const [name, args] of [
    ['list_directory', { host: 'a', path: '/r' }],
    ['list_files', { host: 'a', path: '/r', limit: 5000 }],
    ['list_directories', { host: 'a', path: '/' }],
  ] as const) {
    const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
    const whole = Buffer.byteLength(JSON.stringify({ content: r.content, structuredContent: r.structuredContent }));
    assert.ok(whole <= 8192, `${name}: ${whole} bytes`);
    const sc = r.structuredContent as { entries?: { name: string }[]; items?: { path: string }[]; truncated: boolean };
    if (name === 'list_directories') continue;
    assert.match(text(r), /\[WARNING\] answer cut at 8192 bytes after \d+/, name);
    assert.equal(sc.truncated, true);
    // Text and rows end at the same row.
    const rows = sc.entries ?? sc.items ?? [];
    const last = rows.at(-1) as { path?: string; name?: string } | undefined;
    const lastRow = last?.path ?? last?.name ?? '';
    const rowLines = text(r)
      .split('\n')
      .filter((l) => /entry-\d{5}/.test(l));
    assert.equal(rowLines.length, rows.length, name);
    assert.ok(rowLines.at(-1)?.includes(lastRow), `${name}: ${rowLines.at(-1)} vs ${lastRow}`);
  }
  await close();
});

test('tools/list is small and speaks the model’s terms: no other products named, defaults in each schema', async () => {
  const { client, close } = await connect(fleet());
  const listed = await client.listTools();
  const bytes = Buffer.byteLength(JSON.stringify(listed));
  // Issue 22: ≤ 10 KB whole (24.4 KB before it, 14.0 KB with scans; 9.9 KB then). Issue 21's
  // MCP tasks added `execution: {taskSupport: optional}` to the five fan-out tools (195 bytes),
  // gone again with the v2 SDK (issue 37): ≤ 10 KiB.
  assert.ok(bytes <= 10_240, `tools/list is ${bytes} bytes`);
  for (const t of listed.tools) {
    assert.doesNotMatch(t.description ?? '', /DesktopCommander|Jupyter|Linux MCP Server|as .* prints it/, t.name);
    assert.match(t.description ?? '', /\?/, `${t.name}: the description says what question it answers`);
  }
  const props = (name: string) =>
    (listed.tools.find((t) => t.name === name)?.inputSchema.properties ?? {}) as Record<string, { default?: unknown }>;
  assert.equal(props('list_directory').depth.default, 2);
  assert.equal(props('list_directory').max_items_per_dir.default, 100);
  // Every type, as `fleetls ls`: what is in a directory includes its subdirectories.
  assert.equal(props('list_files').type.default, 'any');
  assert.equal(props('list_files').order_by.default, 'name');
  assert.equal(props('list_files').limit.default, 200);
  // A choice of types is an anyOf, as zod writes it: MCP Inspector 2.12 warns on a `type` list.
  for (const t of listed.tools) {
    for (const [k, p] of Object.entries(t.inputSchema.properties ?? {}) as [string, { type?: unknown }][]) {
      assert.ok(!Array.isArray(p.type), `${t.name}.${k}: type ${JSON.stringify(p.type)}`);
    }
  }
  assert.deepEqual((props('list_files').min_size as { anyOf?: unknown }).anyOf, [
    { type: 'string' },
    { type: 'number' },
  ]);
  await close();
});

test("2026-07-28 (serveStdio's opening, server/discover): progress comes, and the client's cancellation reaches every in-flight host", async () => {
  const h1 = new HangingBackend();
  const h2 = new HangingBackend();
  const [ct, st] = InMemoryTransport.createLinkedPair();
  const handle = serveStdio(
    () => createMcpServer({ fleet: new FakeFleet({ h1, h2 }), logger, progressIntervalMs: 50 }),
    {
      transport: st,
    },
  );
  const client = new ClientV2({ name: 'test', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(ct);
  assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
  const ctrl = new AbortController();
  const progress: number[] = [];
  const call = client.callTool(
    { name: 'list_files', arguments: { host: 'all', path: '/r' } },
    { signal: ctrl.signal, onprogress: (p) => void progress.push(p.progress) },
  );
  await Promise.all([h1.whenCalled(), h2.whenCalled()]);
  for (let i = 0; i < 200 && progress.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(progress.length > 0, 'a heartbeat while both hosts walk');
  ctrl.abort('user pressed stop');
  await assert.rejects(call);
  for (let i = 0; i < 200 && h1.aborts + h2.aborts < 2; i++) await new Promise((r) => setTimeout(r, 5));
  assert.equal(h1.aborts, 1);
  assert.equal(h2.aborts, 1);
  await client.close();
  await handle.close();
});
