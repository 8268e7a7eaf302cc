// The key test of the design: the same tree, listed through an agent (TCP), through SSH
// (no agent), through an agent on a Unix socket reached through sshd (agent+ssh: the
// agent has no TCP port at all) and through the TCP agent dialled out to a real nats-server
// (agent+nats), gives identical structured answers for every tool, order and page. All read as unprivileged users, so an unreadable directory is unreadable on
// every path.
// Then one call over an agent, an SSH host, a host with a wrong host key and an
// unreachable host returns merged rows and the right status row for each.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { treeEntryPaths } from '@fleetls/gateway/testing';
import { makeTree, range, type TreeSpec } from '@fleetls/testkit';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type AgentProcess, startAgent } from '../helpers/agent-process.js';
import { stdioClient } from '../helpers/gateway-process.js';
import { type NatsNode, startNatsCluster } from '../helpers/nats-server.js';
import { tcpListenersOf } from '../helpers/proc-sockets.js';
import { ensureUser, type Sshd, sshInventory, startSshd } from '../helpers/sshd.js';

/** The hostile tree the issue names. */
const PARITY_TREE: TreeSpec = [
  ['a/b/c/d/deep.txt', 'deep'],
  ['a/b/one.txt', '1'],
  ['a/Two.TXT', 'two two'],
  ...range(
    5000,
    (i) => `big/f${String(i).padStart(4, '0')}.dat`,
    (i) => {
      const t = 1_600_000_000 + ((i * 104_729) % 50_000_000) + (i % 10) / 10;
      return { size: (i * 7919) % 100_003, mtime: t };
    },
  ),
  ['sparse.img', { size: 10 * 1024 ** 3 }],
  // A directory whose apparent size (du -b) is 1 GiB and whose allocated size (du) is a few blocks.
  ['vm/disk.img', { data: 'boot', size: 1024 ** 3 }],
  ['.hidden', 'h'],
  ['new\nline.txt', 'n'],
  [Buffer.from('bad-\xff\xfe.txt', 'latin1'), 'b'],
  ["it's $(touch PWNED) `x`; -rf.txt", 'q'],
  ['dirlink', { link: 'a' }],
  ['filelink', { link: 'a/Two.TXT' }],
  ['broken', { link: 'nowhere' }],
  ['a/loop', { link: '.' }],
  ['locked/inner', { dir: true }],
  ['locked/secret.txt', 's'],
  ['locked', { dir: true, mode: 0o000 }],
];

async function gateway(inventory: string): Promise<Client> {
  return (await stdioClient('parity-test', {}, { args: ['--inventory', inventory] })).client;
}

type Json = Record<string, unknown>;

async function call(client: Client, name: string, args: Json): Promise<Json> {
  const res = await client.callTool({ name, arguments: args });
  assert.ok(!res.isError, `${name} ${JSON.stringify(args)} failed: ${JSON.stringify(res.content)}`);
  return res.structuredContent as Json;
}

/** The answer with what legitimately differs between two hosts removed. */
function comparable(answer: Json, host: string): unknown {
  const text = JSON.stringify(answer).replaceAll(`"${host}"`, '"HOST"');
  return JSON.parse(text, (key, value) =>
    key === 'hosts' || key === 'elapsed_ms' || key === 'next_cursor' || key === 'result' ? undefined : value,
  );
}

describe('agent and SSH give the same answers', () => {
  let sshd: Sshd;
  let agent: AgentProcess;
  let sockAgent: AgentProcess;
  let client: Client;
  let root: string;
  let nats: NatsNode[] = [];

  before(async () => {
    sshd = await startSshd();
    root = makeTree(join(sshd.dir, 'tree'), PARITY_TREE, { uid: sshd.uid, gid: sshd.gid });
    nats = await startNatsCluster({ dir: join(sshd.dir, 'nats') });
    // The same agent process on gRPC and on NATS (host vianats): both carriers at once.
    agent = await startAgent({
      allow: [root],
      uid: sshd.uid,
      gid: sshd.gid,
      args: ['--connect', nats[0].url, '--name', 'vianats'],
    });
    // Registered before the gateway reads the registry.
    await agent.waitForLog((l) => l.msg === 'serving on NATS', 60_000);
    // The agent behind sshd: its own user, the SSH login's group, a socket only that group may use.
    const run = join(sshd.dir, 'run');
    mkdirSync(run);
    chownSync(run, ensureUser('fleetls-agent-t').uid, sshd.gid);
    chmodSync(run, 0o750);
    sockAgent = await startAgent({
      allow: [root],
      socket: join(run, 'agent.sock'),
      uid: ensureUser('fleetls-agent-t').uid,
      gid: sshd.gid,
      args: ['--socket-group', String(sshd.gid)],
    });
    const inventory = join(sshd.dir, 'parity.yaml');
    const ssh = sshInventory(sshd);
    writeFileSync(
      inventory,
      [
        'hosts:',
        `  viaagent: { agent: "${agent.address}" }`,
        `  viassh: { ssh: ${ssh} }`,
        `  viasock: { ssh: ${ssh}, agent: "ssh:${join(run, 'agent.sock')}" }`,
        `  localhost: { embedded: { allow: ["${root}"] } }`,
        `  badkey: { ssh: ${sshInventory(sshd, { knownHosts: join(sshd.dir, 'wrong_known_hosts') })} }`,
        '  nowhere: { agent: "127.0.0.1:1" }',
        'agent_tls: insecure',
        'hosts_from: nats',
        `nats: { servers: ["${nats[0].url}"] }`,
        '',
      ].join('\n'),
    );
    // A known_hosts that pins a different key for the same address: a changed host key.
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(sshd.dir, 'other_key')]);
    const otherKey = execFileSync('cat', [join(sshd.dir, 'other_key.pub')], { encoding: 'utf8' }).split(' ');
    writeFileSync(join(sshd.dir, 'wrong_known_hosts'), `[127.0.0.1]:${sshd.port} ${otherKey[0]} ${otherKey[1]}\n`);
    client = await gateway(inventory);
  });

  after(async () => {
    await client?.close();
    await agent?.stop();
    await sockAgent?.stop();
    await sshd?.stop();
    for (const n of nats) await n.stop();
  });

  async function same(tool: string, args: Json): Promise<Json> {
    const viaAgent = await call(client, tool, { ...args, host: 'viaagent' });
    const viaSsh = await call(client, tool, { ...args, host: 'viassh' });
    const viaSock = await call(client, tool, { ...args, host: 'viasock' });
    const viaNats = await call(client, tool, { ...args, host: 'vianats' });
    const statuses = [viaAgent, viaSsh, viaSock, viaNats].map((a) => (a.hosts as Json[]).map((h) => [h.status, h.via]));
    const what = `${tool} ${JSON.stringify(args)}`;
    assert.deepEqual(
      statuses,
      [[['ok', 'agent']], [['ok', 'ssh']], [['ok', 'agent+ssh']], [['ok', 'agent+nats']]],
      what,
    );
    assert.deepEqual(comparable(viaSsh, 'viassh'), comparable(viaAgent, 'viaagent'), what);
    assert.deepEqual(comparable(viaSock, 'viasock'), comparable(viaAgent, 'viaagent'), what);
    assert.deepEqual(comparable(viaNats, 'vianats'), comparable(viaAgent, 'viaagent'), what);
    return viaAgent;
  }

  it('the agent behind sshd listens on no TCP port', () => {
    assert.deepEqual(tcpListenersOf(sockAgent.pid), []);
  });

  it('list_directory: trees, caps and error rows', async () => {
    const deep = await same('list_directory', { path: root, depth: 5 });
    const entries = treeEntryPaths(deep as { dirs: string[]; entries: { name: string; dir?: number }[] }) as Json[];
    assert.ok(entries.some((e) => e.path === 'locked' && (e.error as Json | undefined)?.code === 'DENIED'));
    assert.ok(entries.some((e) => e.path === 'bad-\\xff\\xfe.txt'));
    assert.ok(entries.some((e) => e.path === 'new\\nline.txt'));
    assert.ok(entries.some((e) => e.path === 'big/f0099.dat'));
    assert.ok(!entries.some((e) => e.path === 'big/f0100.dat'), 'nested directories show 100 items');
    await same('list_directory', { path: root, depth: 2, max_items_per_dir: 7 });
    await same('list_directory', { path: join(root, 'dirlink'), depth: 3 });
  });

  it('list_files: every order, patterns and pages', async () => {
    for (const order_by of ['name', 'size', 'modified']) {
      for (const sort of ['ascending', 'descending']) {
        const page = await same('list_files', { path: root, order_by, sort, max_depth: 4, type: 'any', limit: 40 });
        assert.equal(page.count, 40);
        // Name order is path order, paged by resuming the walk: no total until the end is in sight.
        if (order_by === 'name') assert.ok(page.total === undefined && typeof page.next_cursor === 'string');
        else assert.ok((page.total as number) > 5000);
      }
    }
    await same('list_files', { path: root, max_depth: 1, pattern: '*.dat', order_by: 'size', top_n: 25, type: 'file' });
    await same('list_files', { path: root, max_depth: 3, type: 'symlink' });
    // Paging with start_index covers the same rows on both paths.
    for (const start_index of [0, 1000, 4990]) {
      await same('list_files', {
        path: join(root, 'big'),
        order_by: 'modified',
        start_index,
        limit: 500,
        type: 'file',
      });
    }
  });

  it('list_directories: every order, recursive sizes included', async () => {
    for (const order_by of ['name', 'size', 'modified']) {
      for (const sort of ['ascending', 'descending']) {
        const answer = await same('list_directories', { path: root, order_by, sort });
        const nodes = answer.nodes as Json[];
        assert.ok(nodes.length >= 3);
        if (order_by === 'size') {
          const a = nodes.find((n) => n.name === 'a');
          assert.ok(a && (a.size as number) > 4096 * 4, 'directory sizes are recursive');
        }
      }
    }
  });

  it('stat: files, directories, links and hostile names', async () => {
    for (const p of ['a/Two.TXT', 'a', 'dirlink', 'broken', 'locked', "it's $(touch PWNED) `x`; -rf.txt"]) {
      await same('stat', { path: join(root, p) });
    }
    // Requested paths with line breaks are refused on every path (they are listed, never asked for).
    for (const host of ['viaagent', 'viassh', 'viasock', 'vianats']) {
      const res = await client.callTool({ name: 'stat', arguments: { host, path: join(root, 'new\nline.txt') } });
      assert.ok(res.isError);
      assert.match(JSON.stringify(res.content), /path must not contain control characters/);
    }
  });

  it('disk_usage and diff_directory: the same sizes, and one group for the four transports', async () => {
    const du = await same('disk_usage', { path: root, depth: 2 });
    const rows = du.rows as { path: string; size: number; allocated?: number; unreadable_dirs?: number }[];
    // Allocated beside apparent, as du beside du -b: the sparse image's directory takes a few blocks.
    const vm = rows.find((r) => r.path === 'vm');
    assert.ok(
      vm && vm.size > 1024 ** 3 && (vm.allocated ?? 0) > 0 && (vm.allocated ?? 0) < 1024 ** 2,
      JSON.stringify(vm),
    );
    assert.ok(
      rows.every((r) => typeof r.allocated === 'number'),
      'every row has its allocated size',
    );
    // The unreadable directory is counted, and said why in the text.
    assert.deepEqual(
      rows.filter((r) => r.unreadable_dirs).map((r) => [r.path, r.unreadable_dirs]),
      [['locked', 1]],
    );
    const text = await client.callTool({ name: 'disk_usage', arguments: { host: 'viassh', path: root, depth: 2 } });
    assert.match(JSON.stringify(text.content), /ON DISK/);
    assert.match(
      JSON.stringify(text.content),
      new RegExp(`≥ marks a lower bound: ${root}/locked \\(1 unreadable directory\\)`),
    );
    // The embedded route (the gateway's own process, root here: it reads locked/ too) sizes vm alike
    // (a one-host answer's rows name no host).
    const own = (await call(client, 'disk_usage', { host: 'localhost', path: root, depth: 1 })).rows as typeof rows;
    assert.deepEqual(
      own.find((r) => r.path === 'vm'),
      vm,
    );
    const diff = await call(client, 'diff_directory', {
      host: 'viaagent,viassh,viasock,vianats',
      path: root,
      depth: 3,
    });
    assert.deepEqual(
      (diff.groups as Json[]).map((g) => g.hosts),
      [['viaagent', 'viassh', 'viasock', 'vianats']],
      JSON.stringify(diff).slice(0, 3000),
    );
    assert.deepEqual(diff.differences, []);
  });

  it('list_hosts: the agent behind sshd is reachable, via agent+ssh, with its version', async () => {
    const answer = await call(client, 'list_hosts', { host: 'viasock', check: true });
    const [row] = answer.hosts as Json[];
    assert.equal(row.transport, 'agent+ssh');
    assert.equal(row.via, 'agent+ssh');
    assert.equal(row.status, 'ok');
    assert.match(String(row.version), /^\d+\.\d+\.\d+/);
  });

  it('one call over an agent, SSH, a changed host key and a dead address: merged rows and a status each', async () => {
    const res = await client.callTool({
      name: 'list_files',
      arguments: {
        host: 'viaagent,viassh,badkey,nowhere',
        path: join(root, 'big'),
        order_by: 'size',
        sort: 'descending',
        limit: 10,
        type: 'file',
      },
    });
    assert.ok(!res.isError, JSON.stringify(res.content));
    const answer = res.structuredContent as Json;
    const status = Object.fromEntries((answer.hosts as Json[]).map((h) => [h.host, h]));
    assert.equal((status.viaagent as Json).status, 'ok');
    assert.equal((status.viassh as Json).status, 'ok');
    assert.equal((status.badkey as Json).status, 'auth');
    assert.match(String((status.badkey as Json).message), /SHA256:/);
    assert.equal((status.nowhere as Json).status, 'unreachable');
    const items = answer.items as Json[];
    assert.equal(items.length, 10);
    // Both live hosts hold the same files: the merge interleaves them, largest first, host breaking ties.
    assert.deepEqual(
      items.slice(0, 2).map((i) => i.host),
      ['viaagent', 'viassh'],
    );
    const sizes = items.map((i) => i.size as number);
    assert.deepEqual(
      sizes,
      [...sizes].sort((x, y) => y - x),
    );
  });
});
