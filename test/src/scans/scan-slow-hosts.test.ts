// Issue 21's Done-when: 300 slow hosts (one process of stub agents serving the real agent's
// handlers, each host on its own port, answering after up to 90 s, several never), reached by
// the real `fleetls serve` over stdio and over Streamable HTTP. One call returns within 40 s
// with rows and `pending` hosts; following next_cursor completes within 3 min with each
// answering host's rows exactly once and the never-answering hosts as `timeout`; a cancelled
// scan (notifications/cancelled, or scan_status cancel=true) ends every walk (2 s asked, as the
// walks see it: each stub agent stamps the end of its stream, the test stamps the cancel);
// another bearer token's cursor is refused (to the tool, to scan_status, to its cancel) and the
// scan goes on; rows past the memory bound spill to files under the state directory and come
// back once each; the gateway's peak RSS stays under 400 MiB (121-136 MiB seen).
//
// Times are scaled by FLEETLS_SCAN_TEST_SCALE (default 0.15: delays up to 13.5 s, a call's
// deadline 6 s, a host's share of a scan 18 s); FLEETLS_SCAN_TEST_SCALE=1 runs the issue's
// full size (delays up to 90 s, the 40 s call, 120 s per host). The 40 s and 3 min bounds are
// asserted at every scale: they are the claims, and the scaled run is far inside them.
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { treeEntryPaths } from '@fleetls/gateway/testing';
import { range, waitFor } from '@fleetls/testkit';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type GatewayProcess, httpClient, startGateway, stdioClient } from '../helpers/gateway-process.js';
import { assertHostRows, type SlowAgents, type SlowFleet, startSlowFleet } from '../helpers/slow-agents.js';
import { suiteFixture } from '../helpers/suite-fixture.js';

const SCALE = Number(process.env.FLEETLS_SCAN_TEST_SCALE ?? '0.15');
const HOSTS = 300;
/** Hosts that never answer: every 50th (6 of 300). */
const NEVER = (i: number) => i % 50 === 7;
const MAX_DELAY_MS = 90_000 * SCALE;
const CALL_DEADLINE_MS = Math.max(1000, Math.round(40_000 * SCALE));
const HOST_DEADLINE_MS = Math.round(120_000 * SCALE);
/** The bounds, asserted at every scale. */
const FIRST_ANSWER_MS = 40_000;
const WHOLE_SCAN_MS = 180_000;
/**
 * The 2 s for a cancelled scan's walks to end, from the cancel (stamped before it is
 * sent) to the last walk's end as the agents stamp it. One signal aborts every host's HTTP/2
 * stream (fan-out.ts): nothing waits per host; the ends spread only as the gateway and the
 * agents get the CPU (15-900 ms over 200 walks at load 7).
 */
const CANCEL_MS = 2000;
/** Files in the listed directory (every host lists the same tree): rows per host, the directory's own entries. */
const FILES = 5;
/**
 * Rows the gateway keeps in memory over all scans (`scan_memory_rows`): 300 hosts × 6 rows are
 * 1,800, so the rows of most hosts done before their page spill to files under the state
 * directory and are read back for it.
 */
const MEMORY_ROWS = 300;
const TOKEN = 'scan-test-token-0123456789';
/** A second principal of the same HTTP gateway (the token file's second line). */
const TOKEN_B = 'scan-test-token-b-9876543210';

/** Host i's delay: spread over 0…MAX_DELAY_MS in an order unlike the inventory's, a tenth at once. */
function delayOf(i: number): number | null {
  if (NEVER(i)) return null;
  if (i % 10 === 0) return 0;
  return Math.round((MAX_DELAY_MS * ((i * 7919) % HOSTS)) / (HOSTS - 1));
}

const name = (i: number) => `h${String(i).padStart(3, '0')}`;

interface Page {
  /** list_directory's rows (list_files' `items` are read into it). */
  entries: { host?: string; path: string }[];
  next_cursor?: string;
  hosts: { host: string; status: string }[];
  scan?: { id: string; state: string; complete: boolean; hosts_done: number; hosts_total: number };
}

const pageOf = (r: CallToolResult) => {
  assert.ok(!r.isError, JSON.stringify(r.content));
  const s = r.structuredContent as unknown as Omit<Page, 'entries'> & {
    items?: Page['entries'];
    dirs?: string[];
    entries?: { host?: string; name: string; dir?: number }[];
  };
  // list_directory's rows name their directory by index in `dirs`: their paths put back.
  if (s.items) return { ...s, entries: s.items };
  return { ...s, entries: treeEntryPaths({ dirs: s.dirs ?? [], entries: s.entries ?? [] }) };
};
const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

/** Spill files under the state directory now. */
function spilled(state: string): number {
  try {
    return readdirSync(join(state, 'scans'), { recursive: true }).filter((f) => String(f).endsWith('.json')).length;
  } catch {
    return 0;
  }
}

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

/** The peak RSS of `pid` while `fn` runs, sampled every 200 ms. */
async function peakRss<T>(pid: number, fn: () => Promise<T>): Promise<{ value: T; peakMiB: number }> {
  let peak = rssMiB(pid);
  const t = setInterval(() => {
    try {
      peak = Math.max(peak, rssMiB(pid));
    } catch {
      // the process is gone; the test says why elsewhere
    }
  }, 200);
  try {
    const value = await fn();
    return { value, peakMiB: Math.max(peak, rssMiB(pid)) };
  } finally {
    clearInterval(t);
  }
}

/** The slow fleet, and the gateways' state directory ($FLEETLS_STATE_DIR): scans spill under scans/. */
type Fixture = SlowFleet & { state: string };

async function startFleet(): Promise<Fixture> {
  const fleet = await startSlowFleet({
    tree: [
      ['sub', { dir: true }],
      ...range(
        FILES,
        (f) => `f${f}.log`,
        (f) => 'x'.repeat(f + 1),
      ),
    ],
    delays: Array.from({ length: HOSTS }, (_, i) => delayOf(i)),
    name,
    defaults: `{ connect_timeout_ms: 5000, deadline_ms: ${HOST_DEADLINE_MS}, call_deadline_ms: ${CALL_DEADLINE_MS}, scan_host_deadline_ms: ${HOST_DEADLINE_MS}, scan_memory_rows: ${MEMORY_ROWS} }`,
  });
  const state = join(fleet.work, 'state');
  mkdirSync(state);
  return { ...fleet, state };
}

type Call = (args: Record<string, unknown>, signal?: AbortSignal) => Promise<CallToolResult>;

/**
 * The first call and every page its next_cursor leads to, through `callFor(page)` (a new
 * client per page over HTTP): the rows of each host, every status a host was given. `args`:
 * list_directory's one level (the default), or list_files' in name order.
 */
async function followScan(
  fx: Fixture,
  callFor: (page: number) => Promise<Call>,
  args: Record<string, unknown> = { host: 'all', path: fx.data, depth: 1 },
) {
  // Timed from the call itself (a new HTTP client's initialize is not the call).
  const call0 = await callFor(0);
  const started = performance.now();
  const first = await call0(args);
  const firstMs = performance.now() - started;
  const pages = [pageOf(first)];
  const firstText = textOf(first);
  let last = pages[0];
  while (last.next_cursor) {
    last = pageOf(await (await callFor(pages.length))({ ...args, cursor: last.next_cursor }));
    pages.push(last);
  }
  return { firstMs, wholeMs: performance.now() - started, pages, firstText };
}

function checkScan(r: Awaited<ReturnType<typeof followScan>>): void {
  const [first] = r.pages;
  assert.ok(r.firstMs < FIRST_ANSWER_MS, `the first answer took ${Math.round(r.firstMs)} ms`);
  assert.equal(first.scan?.state, 'running', 'the first call went on as a scan');
  assert.equal(first.scan?.hosts_total, HOSTS);
  assert.ok(first.entries.length > 0, 'the first page holds the rows of the hosts done');
  const pendingFirst = first.hosts.filter((h) => h.status === 'pending').length;
  assert.ok(pendingFirst > 0 && pendingFirst < HOSTS, `${pendingFirst} hosts pending on the first page`);
  assert.match(first.next_cursor ?? '', /^scan\./);
  assert.match(r.firstText, /\[PENDING\] \d+ hosts/);
  assert.ok(r.wholeMs < WHOLE_SCAN_MS, `the whole scan took ${Math.round(r.wholeMs)} ms`);
  const last = r.pages[r.pages.length - 1];
  assert.equal(last.scan?.complete, true);
  assert.equal(last.scan?.state, 'complete');

  // Each host's final status: the one of the page whose batch held it (pending before that).
  const status = new Map<string, string>();
  for (const p of r.pages)
    for (const h of p.hosts) {
      if (h.status === 'pending') {
        assert.ok(!status.has(h.host), `${h.host} pending after it was delivered`);
        continue;
      }
      const had = status.get(h.host);
      assert.ok(had === undefined || had === h.status, `${h.host}: ${had} then ${h.status}`);
      status.set(h.host, h.status);
    }
  const rows = new Map<string, string[]>();
  const seen = new Set<string>();
  for (const p of r.pages)
    for (const e of p.entries) {
      const key = `${e.host}:${e.path}`;
      assert.ok(!seen.has(key), `${key} twice`);
      seen.add(key);
      rows.set(e.host as string, [...(rows.get(e.host as string) ?? []), e.path]);
    }
  const want = ['f0.log', 'f1.log', 'f2.log', 'f3.log', 'f4.log', 'sub'];
  assertHostRows(
    Array.from({ length: HOSTS }, (_, i) => name(i)),
    NEVER,
    status,
    rows,
    want,
  );
}

/**
 * Once 100 walks are open (begun since event `since`, not ended) and the fan-out's burst of new
 * ones is over, cancels the scan; returns ms from the
 * cancel until the agents saw the last walk end, and how many walks the cancel ended with the
 * first of them (their spread tells a late cancel from one serialized walk by walk).
 */
async function cancelScan(
  agents: SlowAgents,
  since: number,
  cancel: () => Promise<void>,
): Promise<{ ms: number; firstMs: number; walks: number }> {
  const before = since;
  // Open walks, not begun ones: a cancel in the middle of the fan-out's burst of 256 new
  // connections waits behind their set-up on a starved gateway (profiled: 2 s to the first end
  // at load 7, of which the cancel itself took 31 ms of CPU), which is no walk to stop.
  await waitFor(() => agents.open(before) >= 100 && Date.now() - agents.lastStart() >= 500, {
    timeoutMs: 60_000,
    what: 'walks under way on 100 hosts, none begun for 0.5 s',
  });
  assert.ok(agents.open() > 0, 'walks are open when the scan is cancelled');
  const at = Date.now();
  await cancel();
  await waitFor(() => agents.open() === 0, { timeoutMs: 30_000, what: 'every walk ended' });
  const ends = agents.events.slice(before).filter((e) => e.ev === 'end');
  const cancelled = ends.filter((e) => e.t >= at).map((e) => e.t);
  return { ms: Math.max(...ends.map((e) => e.t)) - at, firstMs: Math.min(...cancelled) - at, walks: cancelled.length };
}

describe(`a scan over ${HOSTS} slow hosts (scale ${SCALE})`, { concurrency: false }, () => {
  const fx = suiteFixture(startFleet, (fleet) => fleet.close());

  describe('over stdio', { concurrency: false }, () => {
    let client: Client;
    let transport: StdioClientTransport;
    const call: Call = async (args, signal) =>
      (await client.callTool({ name: 'list_directory', arguments: args }, undefined, {
        signal,
        timeout: 60_000,
      })) as CallToolResult;
    const callFiles: Call = async (args) =>
      (await client.callTool({ name: 'list_files', arguments: args }, undefined, {
        timeout: 60_000,
      })) as CallToolResult;
    before(async () => {
      const env = { FLEETLS_INVENTORY: fx().inventory, FLEETLS_STATE_DIR: fx().state };
      ({ client, transport } = await stdioClient('scan-stdio', env));
    });
    after(async () => {
      await client?.close();
    });

    it('one call answers within 40 s with rows and pending hosts; next_cursor completes within 3 min, each row once', async (t) => {
      let spills = 0;
      const { value, peakMiB } = await peakRss(transport.pid as number, () =>
        followScan(fx(), async (page) => {
          if (page === 1) spills = spilled(fx().state);
          return call;
        }),
      );
      checkScan(value);
      assert.ok(spills > 0, `rows past ${MEMORY_ROWS} in memory spilled to files under the state directory`);
      t.diagnostic(
        `first answer ${Math.round(value.firstMs)} ms, whole scan ${Math.round(value.wholeMs)} ms over ${value.pages.length} pages, ${spills} host results spilled at the first page; gateway peak RSS ${peakMiB.toFixed(0)} MiB`,
      );
      // Bounded: the rows of 300 hosts are small, the gateway's own heap dominates.
      assert.ok(peakMiB < 400, `gateway RSS peaked at ${peakMiB.toFixed(0)} MiB`);
    });

    it('list_files in name order, its default, scans the same: every answering host once, none lost at the deadline', async (t) => {
      // Issue 37: in name order the call answered at its deadline with the slow hosts `timeout`
      // and no cursor; hosts that would have answered a little later were lost.
      const value = await followScan(fx(), async () => callFiles, { host: 'all', path: fx().data });
      checkScan(value);
      t.diagnostic(
        `first answer ${Math.round(value.firstMs)} ms, whole scan ${Math.round(value.wholeMs)} ms over ${value.pages.length} pages`,
      );
    });

    it('notifications/cancelled (the client aborts the call) ends every walk at once', async (t) => {
      const ctrl = new AbortController();
      const since = fx().agents.events.length;
      const pending = call({ host: 'all', path: fx().data, depth: 1 }, ctrl.signal).catch((err: Error) => err);
      const { ms, firstMs, walks } = await cancelScan(fx().agents, since, async () => {
        ctrl.abort();
        const answer = await pending;
        assert.ok(answer instanceof Error, 'the call was still running when it was cancelled');
      });
      t.diagnostic(`every walk ended ${ms} ms after the cancel (${walks} walks, the first ${firstMs} ms)`);
      assert.ok(ms <= CANCEL_MS, `the last walk ended ${ms} ms after the cancel`);
    });

    it('scan_status cancel=true ends every walk of a scan that outlived its call at once', async (t) => {
      const since = fx().agents.events.length;
      const first = pageOf(await call({ host: 'all', path: fx().data, depth: 1 }));
      assert.match(first.next_cursor ?? '', /^scan\./);
      assert.equal(first.scan?.state, 'running');
      const { ms, firstMs, walks } = await cancelScan(fx().agents, since, async () => {
        const r = (await client.callTool({
          name: 'scan_status',
          arguments: { cursor: first.next_cursor, cancel: true },
        })) as CallToolResult;
        assert.equal((r.structuredContent as { cancelled: boolean }).cancelled, true, textOf(r));
      });
      t.diagnostic(`every walk ended ${ms} ms after scan_status cancel=true (${walks} walks, the first ${firstMs} ms)`);
      assert.ok(ms <= CANCEL_MS, `the last walk ended ${ms} ms after the cancel`);
    });

    it("another session's cursor is refused", async () => {
      const first = pageOf(await call({ host: 'all', path: fx().data, depth: 1 }));
      const { client: other } = await stdioClient('scan-other', { FLEETLS_INVENTORY: fx().inventory });
      try {
        const r = (await other.callTool({
          name: 'list_directory',
          arguments: { host: 'all', path: fx().data, depth: 1, cursor: first.next_cursor },
        })) as CallToolResult;
        assert.equal(r.isError, true);
        assert.match(textOf(r), /cursor names scan [0-9a-f]{16}, which this gateway does not hold/);
      } finally {
        await other.close();
        await client.callTool({ name: 'scan_status', arguments: { cursor: first.next_cursor, cancel: true } });
      }
    });
  });

  describe('over Streamable HTTP, a new connection for every page', { concurrency: false }, () => {
    let gw: GatewayProcess;
    let url: string;
    const clients: Client[] = [];
    const connect = async (token = TOKEN): Promise<Call> => {
      const client = await httpClient(url, token, 'scan-http');
      clients.push(client);
      return async (args, signal) =>
        (await client.callTool({ name: 'list_directory', arguments: args }, undefined, {
          signal,
          timeout: 60_000,
        })) as CallToolResult;
    };
    before(async () => {
      const tokens = join(fx().work, 'tokens');
      writeFileSync(tokens, `${TOKEN}\n${TOKEN_B}\n`, { mode: 0o600 });
      gw = startGateway(['--http', '127.0.0.1:0', '--token-file', tokens], {
        FLEETLS_INVENTORY: fx().inventory,
        FLEETLS_STATE_DIR: fx().state,
      });
      url = await gw.waitFor(/MCP over HTTP at (http:\/\/\S+)/);
    });
    after(async () => {
      for (const c of clients) await c.close().catch(() => undefined);
      await gw?.stop();
    });

    it('the same scan, the connection dropped between pages: a new client with the same token goes on', async (t) => {
      let previous: Client | undefined;
      let spills = 0;
      const { value, peakMiB } = await peakRss(gw.child.pid as number, () =>
        followScan(fx(), async (page) => {
          if (page === 1) spills = spilled(fx().state);
          // The connection of the page before is closed first: nothing of it carries the scan.
          await previous?.close();
          const call = await connect();
          previous = clients[clients.length - 1];
          return call;
        }),
      );
      checkScan(value);
      assert.ok(spills > 0, `rows past ${MEMORY_ROWS} in memory spilled to files under the state directory`);
      t.diagnostic(
        `first answer ${Math.round(value.firstMs)} ms, whole scan ${Math.round(value.wholeMs)} ms over ${value.pages.length} pages and as many connections, ${spills} host results spilled at the first page; gateway peak RSS ${peakMiB.toFixed(0)} MiB`,
      );
      assert.ok(peakMiB < 400, `gateway RSS peaked at ${peakMiB.toFixed(0)} MiB`);
    });

    it("another bearer token's cursor is refused by the tool, scan_status and its cancel; the scan goes on", async () => {
      const a = await connect(TOKEN);
      const aClient = clients[clients.length - 1];
      const b = await connect(TOKEN_B);
      const bClient = clients[clients.length - 1];
      const args = { host: 'all', path: fx().data, depth: 1 };
      const first = pageOf(await a(args));
      const cursor = first.next_cursor as string;
      assert.match(cursor, /^scan\./);
      assert.equal(first.scan?.state, 'running');
      const id = first.scan?.id as string;
      const refusal = new RegExp(`^permission_denied: cursor names scan ${id}, which another caller started`);
      const since = fx().agents.events.length;

      const page = await b({ ...args, cursor });
      assert.equal(page.isError, true, 'the tool refuses the cursor');
      assert.match(textOf(page), refusal);
      const status = (await bClient.callTool({ name: 'scan_status', arguments: { cursor } })) as CallToolResult;
      assert.equal(status.isError, true, 'scan_status refuses the cursor');
      assert.match(textOf(status), refusal);
      const cancel = (await bClient.callTool({
        name: 'scan_status',
        arguments: { cursor, cancel: true },
      })) as CallToolResult;
      assert.equal(cancel.isError, true, 'scan_status cancel=true refuses the cursor');
      assert.match(textOf(cancel), refusal);

      // A's scan is untouched: still running, its walks not cancelled, its next page its own.
      const mine = (await aClient.callTool({ name: 'scan_status', arguments: { cursor } })) as CallToolResult;
      assert.ok(!mine.isError, textOf(mine));
      assert.equal((mine.structuredContent as { scan: { state: string } }).scan.state, 'running');
      const cancelled = fx()
        .agents.events.slice(since)
        .filter((e) => e.ev === 'end' && e.how === 'cancelled');
      assert.equal(cancelled.length, 0, `${cancelled.length} walks were cancelled by the refused cancel`);
      const next = pageOf(await a({ ...args, cursor }));
      assert.equal(next.scan?.id, id);
      // Done with it: A cancels its own scan, which it may.
      const own = (await aClient.callTool({
        name: 'scan_status',
        arguments: { cursor, cancel: true },
      })) as CallToolResult;
      assert.equal((own.structuredContent as { cancelled: boolean }).cancelled, true, textOf(own));
    });
  });
});
