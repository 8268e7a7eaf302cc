// Faults on real hosts: network namespaces, each its own address and agent over mTLS, one
// gateway (MCP over stdio). One call meets them all at once: an agent killed mid-walk (its
// rows so far are kept and the host says partial, status error), an agent that accepts
// connections and never answers (timeout), a link cut mid-stream (timeout); the healthy
// host's rows all arrive and the call ends. Then an sshd killed mid-listing (loopback: the
// SSH host is this machine) and a gateway killed mid-call (the next gateway answers, the
// agent's walk was cancelled). Slow walks come from a FUSE fixture whose directories take
// 0.15 s each to list. Needs root; asserts statuses and completion, not timings.
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '@fleetls/testkit';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { makePki } from '../helpers/certs.js';
import { type FuseMount, mountFuse } from '../helpers/fuse.js';
import { stdioClient } from '../helpers/gateway-process.js';
import { ip, makeHost, removeHost, startAgentIn, type TestHost } from '../helpers/netns.js';
import { type Sshd, sshInventory, startSshd } from '../helpers/sshd.js';

/**
 * One host's budget; the call's own is a little more. The healthy host's walk (2.4 s when the
 * machine is idle) must finish well inside its 80% share: a walk that stops at its deadline
 * ends the page there, and the hosts after it are left to the next page (no status row yet).
 */
const DEADLINE_MS = 15_000;
/** Rows of a whole walk of the slow tree at depth 2: 15 directories of 20 files. */
const SLOW_ROWS = 15 + 15 * 20;

type Json = Record<string, unknown>;

const gateway = (inventory: string) => stdioClient('faults-test', {}, { args: ['--inventory', inventory] });

async function listDirectory(client: Client, args: Json): Promise<Json> {
  const res = await client.callTool({
    name: 'list_directory',
    arguments: { depth: 2, max_items_per_dir: 100, ...args },
  });
  assert.ok(!res.isError, JSON.stringify(res.content));
  return res.structuredContent as Json;
}

const statusOf = (answer: Json) =>
  Object.fromEntries((answer.hosts as Json[]).map((h) => [h.host, `${h.status}${h.message ? `: ${h.message}` : ''}`]));
const rowsOf = (answer: Json, host: string) =>
  (answer.entries as Json[]).filter((e) => e.host === host || (answer.hosts as Json[]).length === 1).length;

/** Bytes the host has sent so far: what its veth peer in this namespace has received. */
const sentBytes = (h: TestHost): number =>
  Number(readFileSync(`/sys/class/net/${h.hostIf}/statistics/rx_bytes`, 'utf8'));

/** Resolves when the agent has logged the start of a walk. */
async function walkStarted(h: TestHost): Promise<void> {
  await h.agent?.waitForLog((l) => l.msg === 'walk start', 60_000);
}

/** How many lines of the agent's log say `msg`. */
const logged = (h: TestHost, msg: string) => h.agent?.logs().filter((l) => l.msg === msg).length ?? 0;

function pgrep(args: string[]): number[] {
  try {
    return execFileSync('pgrep', args, { encoding: 'utf8' }).trim().split('\n').map(Number);
  } catch {
    return [];
  }
}

/** A process and all its descendants, parents first. */
function processTree(pid: number): number[] {
  return [pid, ...pgrep(['-P', String(pid)]).flatMap(processTree)];
}

describe('faults on real hosts', () => {
  const work = mkdtempSync(join(tmpdir(), 'fleetls-faults-'));
  const tree = join(work, 'tree');
  const hosts: TestHost[] = [];
  let silent: ChildProcess | undefined;
  let fuse: FuseMount;
  let inventory: string;
  let pki: ReturnType<typeof makePki>;

  before(async () => {
    assert.equal(process.getuid?.(), 0, 'network namespaces need root; run the suite as root, as CI does');
    mkdirSync(join(tree, 'slow'), { recursive: true });
    fuse = await mountFuse('slow', join(tree, 'slow'));
    hosts.push(makeHost('ok', 1, 214), makeHost('killed', 2, 214), makeHost('silent', 3, 214), makeHost('cut', 4, 214));
    pki = makePki(
      work,
      hosts.map((h) => h.address),
    );
    await Promise.all([hosts[0], hosts[1], hosts[3]].map((h) => startAgentIn(h, tree, pki)));
    // Accepts every connection and never says a word: no TLS handshake, no gRPC.
    const sink = `require('net').createServer(() => {}).listen(7443, '${hosts[2].address}', () => console.log('up'))`;
    silent = spawn('ip', ['netns', 'exec', hosts[2].ns, process.execPath, '-e', sink], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve) => silent?.stdout?.once('data', () => resolve()));
    inventory = join(work, 'fleetls.yaml');
    writeFileSync(
      inventory,
      [
        'hosts:',
        ...hosts.map((h) => `  ${h.name}: { agent: "${h.address}:7443" }`),
        `agent_tls: { ca: ${pki.ca}, cert: ${pki.clientCert}, key: ${pki.clientKey} }`,
        // A scan's host gets the same budget, so the cut link times out within the call.
        `defaults: { connect_timeout_ms: 1500, deadline_ms: ${DEADLINE_MS}, scan_host_deadline_ms: ${DEADLINE_MS} }`,
        '',
      ].join('\n'),
    );
  });

  after(async () => {
    silent?.kill('SIGKILL');
    for (const h of hosts) removeHost(h);
    await fuse?.unmount();
    rmSync(work, { recursive: true, force: true });
  });

  it('an agent killed mid-walk, a silent agent and a cut link: each its status, the healthy host whole', async () => {
    const { client } = await gateway(inventory);
    try {
      const [killed, cut] = [hosts[1], hosts[3]];
      const answer = listDirectory(client, { host: 'all', path: join(tree, 'slow') });
      // Strike once both walks are under way and the killed host has sent rows: a walk of the slow
      // tree lists 16 directories at 0.15 s each (2.4 s idle), but on a loaded machine its worker
      // can take seconds to send the first batch, and a fixed sleep then killed a walk that had
      // sent nothing (an unreachable host, not a partial one). Its link's byte count says when
      // rows went out; a little more lets the gateway read them before the connection breaks.
      await Promise.all([walkStarted(killed), walkStarted(cut)]);
      const before = sentBytes(killed);
      await waitFor(() => sentBytes(killed) - before >= 512, {
        timeoutMs: 60_000,
        what: "the killed host's first rows",
      });
      // Unobservable from here: time for the gateway to read those rows before the link breaks.
      await new Promise((r) => setTimeout(r, 300));
      killed.agent?.child.kill('SIGKILL');
      ip('link', 'set', cut.hostIf, 'down');
      const got = await answer;
      const status = statusOf(got);
      assert.equal(status.ok, 'ok');
      assert.match(status.killed, /^error: partial answer: the walk broke after \d+ rows, then /);
      assert.match(status.silent, /^timeout/);
      // A cut link is a deadline: with no row yet the host timed out, with rows it is partial.
      assert.match(status.cut, /^(timeout|error: partial answer: .*Deadline exceeded)/);
      assert.equal(rowsOf(got, 'ok'), SLOW_ROWS);
      const partial = rowsOf(got, 'killed');
      assert.ok(partial > 0 && partial < SLOW_ROWS, `the killed host's rows so far: ${partial}`);
    } finally {
      await client.close();
      ip('link', 'set', hosts[3].hostIf, 'up');
    }
  });

  it('a gateway killed mid-call: the next gateway answers, and the agent cancelled the orphaned walk', async () => {
    const ok = hosts[0];
    const first = await gateway(inventory);
    const ends = () => logged(ok, 'walk end');
    const endsBefore = ends();
    const orphaned = first.client
      .callTool({ name: 'list_directory', arguments: { host: 'ok', path: join(tree, 'slow'), depth: 2 } })
      .catch((err: Error) => err);
    const started = logged(ok, 'walk start');
    await waitFor(() => logged(ok, 'walk start') > started, { timeoutMs: 60_000, what: 'the walk under way' });
    const pid = first.transport.pid;
    assert.ok(pid, 'the gateway runs');
    process.kill(pid, 'SIGKILL');
    assert.ok((await orphaned) instanceof Error, 'the call to the killed gateway fails');
    await first.client.close().catch(() => {});

    const second = await gateway(inventory);
    try {
      const got = await listDirectory(second.client, { host: 'ok', path: join(tree, 'slow') });
      assert.equal(statusOf(got).ok, 'ok');
      assert.equal(rowsOf(got, 'ok'), SLOW_ROWS);
    } finally {
      await second.client.close();
    }
    // The killed gateway's walk ended on the agent too (cancelled when its connection went).
    const log = ok.agent?.stderr() ?? '';
    assert.ok(ends() >= endsBefore + 2, log.slice(-2000));
    assert.match(log, /"outcome":"cancelled"/);
  });

  describe('an sshd killed mid-listing (loopback)', () => {
    let sshd: Sshd;
    let sshFuse: FuseMount;
    let sshTree: string;
    before(async () => {
      sshd = await startSshd();
      sshTree = join(sshd.dir, 'slow');
      mkdirSync(sshTree);
      sshFuse = await mountFuse('slow', sshTree);
    });
    after(async () => {
      await sshFuse?.unmount();
      await sshd?.stop();
    });

    it('is that host failing; the agent host still answers', async () => {
      const inv = join(work, 'ssh-fleet.yaml');
      writeFileSync(
        inv,
        [
          'hosts:',
          `  ok: { agent: "${hosts[0].address}:7443" }`,
          `  sshhost: { ssh: ${sshInventory(sshd)} }`,
          `agent_tls: { ca: ${pki.ca}, cert: ${pki.clientCert}, key: ${pki.clientKey} }`,
          // A scan's host gets the same budget, so the cut link times out within the call.
          `defaults: { connect_timeout_ms: 1500, deadline_ms: ${DEADLINE_MS}, scan_host_deadline_ms: ${DEADLINE_MS} }`,
          '',
        ].join('\n'),
      );
      const { client } = await gateway(inv);
      try {
        const answer = client.callTool({
          name: 'list_directory',
          arguments: { host: 'sshhost', path: sshTree, depth: 2, max_items_per_dir: 100 },
        });
        // The oldest: a connection's sshd re-execs itself with the same arguments (and -R), and
        // the call above may already have connected; the listener was started before it.
        const master = pgrep(['-o', '-f', `sshd -D -e -f ${join(sshd.dir, '..', 'sshd_config')}`]);
        assert.equal(master.length, 1, 'the test sshd is found');
        // Mid-listing: the walk's find (run under `timeout`, unlike the probes) is reading the
        // slow tree. Kill this sshd and every process under it (its sessions, their shells and find).
        await waitFor(
          () => {
            const walking = pgrep(['-f', `^timeout -s KILL [0-9]+ find .*${sshTree}`]);
            return processTree(master[0]).some((pid) => walking.includes(pid));
          },
          { timeoutMs: 60_000, what: "the walk's find under the test sshd" },
        );
        for (const pid of processTree(master[0])) process.kill(pid, 'SIGKILL');
        const res = await answer;
        const got = res.structuredContent as Json;
        const status = statusOf(got).sshhost;
        assert.doesNotMatch(status, /^ok/, status);
        const other = await listDirectory(client, { host: 'ok', path: join(tree, 'slow') });
        assert.equal(statusOf(other).ok, 'ok');
      } finally {
        await client.close();
      }
    });
  });
});
