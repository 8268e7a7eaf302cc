// Beyond the seeds, with real processes: find-like filters, diff_directory and disk_usage
// through a real MCP client (stdio gateway) and the real CLI, over a real agent, SSH with
// GNU find, SSH without it (SFTP), an agent that sees a different tree at the same path
// (its own mount namespace), and a dead address. Filters give the same rows on every
// transport and the rows a plain JS filter of the tree gives; du numbers are real du's.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, cpSync, linkSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { bindMountedOver, makeTree, range, type TreeSpec } from '@fleetls/testkit';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type AgentProcess, startAgent } from '../helpers/agent-process.js';
import { fleetls } from '../helpers/cli.js';
import { stdioClient } from '../helpers/gateway-process.js';
import { type Sshd, shimPath, sshInventory, startSshd } from '../helpers/sshd.js';

type Json = Record<string, unknown>;

const T0 = 1_750_000_000; // whole seconds: SFTP carries no nanoseconds
/** name, size, mtime offset (s), mode */
const FILES: [string, number, number, number][] = [
  ['etc/app.conf', 1200, 0, 0o644],
  ['etc/secret.key', 64, 10, 0o600],
  ['etc/world.conf', 300, 20, 0o666],
  ['etc/sub/deep.conf', 5000, 30, 0o640],
  ['log/app.log', 3 * 1024 ** 2, 86_400, 0o644],
  ['log/app.log.1', 2 * 1024 ** 2, 3600, 0o644],
  ['log/old.log', 10 * 1024 ** 2, -86_400 * 30, 0o644],
  ['log/tiny.log', 1, 7200, 0o666],
  ['bin/tool', 20_000, 0, 0o4755],
  ['bin/script.sh', 900, 50, 0o755],
];

/** FILES as a tree: one file owned by root (readable), for owner and group filters. */
function filesTree(): TreeSpec {
  return FILES.map(([name, size, dt, mode]) => [
    name,
    { size, mtime: T0 + dt, mode, ...(name === 'etc/app.conf' ? { uid: 0, gid: 0 } : {}) },
  ]);
}

/**
 * Files at the top (disk_usage's total adds them to its depth-1 directories), big/ with 1000
 * directories of one 5000-byte file (so that, at depth 2, a host's 1000 ranked directories
 * leave small/ out and the total is walked), and small/ with one byte.
 */
function duTree(): TreeSpec {
  return [
    ...range(
      1000,
      (i) => `big/d${i}/f`,
      () => Buffer.alloc(5000),
    ),
    ['small/one', 'x'],
    ['a.log', Buffer.alloc(100)],
    ['b.log', Buffer.alloc(200)],
  ];
}

/** An agent in its own mount namespace, where `other` is mounted over `path`: a host with a different tree. */
function startNamespacedAgent(path: string, other: string, uid: number, gid: number): Promise<AgentProcess> {
  return startAgent({
    allow: [path],
    wrap: [...bindMountedOver(other, path), 'setpriv', `--reuid=${uid}`, `--regid=${gid}`, '--clear-groups'],
  });
}

async function gateway(inventory: string): Promise<Client> {
  return (await stdioClient('beyond-test', {}, { args: ['--inventory', inventory] })).client;
}

describe('filters, diff_directory and disk_usage over every transport', () => {
  let sshd: Sshd;
  let sftpd: Sshd;
  let agent: AgentProcess;
  let odd: AgentProcess;
  let client: Client;
  let root: string;
  /** disk_usage's own tree: files at its top, and more directories than a host ranks for the total. */
  let duRoot: string;
  let inventory: string;

  before(async () => {
    sshd = await startSshd();
    sftpd = await startSshd({ extraConfig: [`SetEnv PATH=${shimPath()}`] });
    root = join(sshd.dir, 'tree');
    makeTree(root, filesTree(), { uid: sshd.uid, gid: sshd.gid });
    // The odd host's tree: the same, one file grown and one more file.
    const other = join(sshd.dir, 'other');
    cpSync(root, other, { recursive: true, preserveTimestamps: true });
    execFileSync('chown', ['-R', `${sshd.uid}:${sshd.gid}`, other]);
    chownSync(join(other, 'etc/app.conf'), 0, 0);
    chmodSync(join(other, 'bin/tool'), 0o4755);
    truncateSync(join(other, 'etc/world.conf'), 301);
    utimesSync(join(other, 'etc/world.conf'), T0 + 20, T0 + 20);
    writeFileSync(join(other, 'etc/extra.conf'), 'x');
    chownSync(join(other, 'etc/extra.conf'), sshd.uid, sshd.gid);
    duRoot = join(sshd.dir, 'du-tree');
    makeTree(duRoot, duTree(), { uid: sshd.uid, gid: sshd.gid });
    agent = await startAgent({ allow: [root, duRoot], uid: sshd.uid, gid: sshd.gid });
    odd = await startNamespacedAgent(root, other, sshd.uid, sshd.gid);
    inventory = join(sshd.dir, 'beyond.yaml');
    writeFileSync(
      inventory,
      [
        'hosts:',
        `  viaagent: { agent: "${agent.address}" }`,
        `  viassh: { ssh: ${sshInventory(sshd)} }`,
        `  viasftp: { ssh: ${sshInventory(sftpd)} }`,
        `  oddagent: { agent: "${odd.address}" }`,
        '  nowhere: { agent: "127.0.0.1:1" }',
        'agent_tls: insecure',
        '',
      ].join('\n'),
    );
    client = await gateway(inventory);
  });

  after(async () => {
    await client?.close();
    await odd?.stop();
    await agent?.stop();
    await sftpd?.stop();
    await sshd?.stop();
  });

  async function call(name: string, args: Json): Promise<{ structured: Json; text: string }> {
    const res = await client.callTool({ name, arguments: args });
    const text = (res.content as { text: string }[])[0]?.text ?? '';
    assert.ok(!res.isError, `${name} ${JSON.stringify(args)} failed: ${text}`);
    return { structured: res.structuredContent as Json, text };
  }

  /** The files a plain JS filter of FILES keeps. */
  function expected(keep: (f: { name: string; size: number; mtime: number; mode: number; root: boolean }) => boolean) {
    return FILES.map(([name, size, dt, mode]) => ({ name, size, mtime: T0 + dt, mode, root: name === 'etc/app.conf' }))
      .filter(keep)
      .map((f) => f.name)
      .sort();
  }

  const cases: [
    string,
    Json,
    (f: { name: string; size: number; mtime: number; mode: number; root: boolean }) => boolean,
  ][] = [
    ['min_size 1M', { min_size: '1M' }, (f) => f.size >= 1024 ** 2],
    ['max_size 900 (inclusive)', { max_size: 900 }, (f) => f.size <= 900],
    ['size range', { min_size: '1K', max_size: '5000' }, (f) => f.size >= 1024 && f.size <= 5000],
    ['modified_after', { modified_after: new Date((T0 + 20) * 1000).toISOString() }, (f) => f.mtime > T0 + 20],
    ['modified_before', { modified_before: new Date((T0 + 10) * 1000).toISOString() }, (f) => f.mtime < T0 + 10],
    ['perm /o+w', { perm: '/o+w' }, (f) => (f.mode & 0o2) !== 0],
    ['perm -u+s', { perm: '-u+s' }, (f) => (f.mode & 0o4000) !== 0],
    ['perm 644 exactly', { perm: '644' }, (f) => f.mode === 0o644],
    ['owner root by name', { owner: 'root' }, (f) => f.root],
    ['owner by uid', { owner: 0 }, (f) => f.root],
    ['group 0', { group: '0' }, (f) => f.root],
    ['name', { name: '*.log*' }, (f) => /\.log/.test(f.name.split('/').pop() as string)],
    [
      'all of them',
      { min_size: 100, perm: '/022', name: '*.conf' },
      (f) => f.size >= 100 && (f.mode & 0o22) !== 0 && f.name.endsWith('.conf'),
    ],
  ];

  for (const [title, filter, keep] of cases) {
    it(`list_files ${title}: agent, SSH and SFTP give the rows a plain filter gives`, async () => {
      const answers: unknown[] = [];
      for (const host of ['viaagent', 'viassh', 'viasftp']) {
        const { structured } = await call('list_files', {
          host,
          path: root,
          max_depth: 3,
          type: 'file',
          order_by: 'size',
          ...filter,
        });
        const items: Json[] = (structured.items as Json[]).map((i) => ({ ...i, host: 'HOST' }));
        assert.deepEqual(items.map((i) => i.path).sort(), expected(keep), `${host} ${title}`);
        answers.push({ items, total: structured.total, found: structured.found });
      }
      assert.deepEqual(answers[1], answers[0], `SSH = agent for ${title}`);
      assert.deepEqual(answers[2], answers[0], `SFTP = agent for ${title}`);
    });
  }

  it('owner by a name one host does not know: that host is a status row, the others answer', async () => {
    const { structured } = await call('list_files', {
      host: 'viaagent,viassh,viasftp',
      path: root,
      max_depth: 3,
      owner: 'no-such-user-here',
    });
    for (const h of structured.hosts as Json[]) {
      assert.equal(h.status, 'error', JSON.stringify(h));
      assert.match(String(h.message), /owner: no user named "no-such-user-here"/);
    }
    const own = await call('list_files', {
      host: 'viassh',
      path: root,
      max_depth: 3,
      type: 'file',
      owner: sshd.user,
      name: 'tool',
    });
    assert.deepEqual(
      (own.structured.items as Json[]).map((i) => i.path),
      ['bin/tool'],
    );
  });

  it('bad filter values are tool errors naming the argument; the server keeps serving', async () => {
    for (const [args, re] of [
      [{ min_size: 'huge' }, /min_size: "huge" is not a size/],
      [{ modified_after: 'yesterday-ish' }, /modified_after: "yesterday-ish" is not a time/],
      [{ perm: 'rwx' }, /perm: "rwx" is not a mode/],
    ] as [Json, RegExp][]) {
      const res = await client.callTool({ name: 'list_files', arguments: { host: 'viaagent', path: root, ...args } });
      assert.ok(res.isError);
      assert.match((res.content as { text: string }[])[0].text, re);
    }
    const diffBad = await client.callTool({
      name: 'diff_directory',
      arguments: { host: 'all', path: root, compare: ['colour'] },
    });
    assert.ok(diffBad.isError);
    assert.match((diffBad.content as { text: string }[])[0].text, /compare: "colour" is not an attribute/);
    const duBad = await client.callTool({ name: 'disk_usage', arguments: { host: 'all', path: root, depth: 9 } });
    assert.ok(duBad.isError);
    assert.match(JSON.stringify(duBad.content), /depth must be an integer from 1 to 3/);
    await call('list_files', { host: 'viaagent', path: root });
  });

  it('diff_directory over the mixed fleet: one group for the same tree, the odd host, the dead one a status row', async () => {
    const { structured, text } = await call('diff_directory', { host: 'all', path: root, depth: 3 });
    assert.deepEqual(structured.groups, [
      { id: 'A', count: 3, baseline: true, hosts: ['viaagent', 'viassh', 'viasftp'] },
      { id: 'B', count: 1, baseline: false, hosts: ['oddagent'] },
    ]);
    assert.deepEqual(
      (structured.differences as Json[]).map((d) => d.path),
      ['etc/extra.conf', 'etc/world.conf'],
    );
    assert.deepEqual(
      (structured.differences as Json[])[1].values,
      [
        { hosts: ['viaagent', 'viassh', 'viasftp'], present: true, size: 300 },
        { hosts: ['oddagent'], present: true, size: 301 },
      ].map((v) => ({ ...v, type: 'file', mode: '0666', uid: sshd.uid, gid: sshd.gid })),
    );
    const status = Object.fromEntries((structured.hosts as Json[]).map((h) => [h.host, h.status]));
    assert.deepEqual(status, { viaagent: 'ok', viassh: 'ok', viasftp: 'ok', oddagent: 'ok', nowhere: 'unreachable' });
    assert.match(text, /^diff .* on 4 of 5 hosts: 2 groups, 2 differences/);
    assert.match(text, /\netc\/world\.conf\n {2}A: size 300\n {2}B: size 301\n/);
    assert.match(text, /nowhere: \[ERROR\] unreachable/);
  });

  /** Real `du -b --one-file-system -d depth` of `dir` as the login user: paths relative to `dir` ('' for its total). */
  function du(dir: string, depth: number): { size: number; path: string }[] {
    const out = execFileSync('du', ['-b', '--one-file-system', '-d', String(depth), dir], {
      uid: sshd.uid,
      gid: sshd.gid,
      encoding: 'utf8',
    });
    return out
      .trim()
      .split('\n')
      .map((l) => l.split('\t'))
      .map(([size, p]) => ({ size: Number(size), path: p.slice(dir.length + 1) }));
  }

  it('disk_usage: the numbers of du -b --one-file-system -d N, on the agent, over SSH and SFTP', async () => {
    for (const depth of [1, 2]) {
      const lines = du(root, depth);
      const want = lines
        .filter((l) => l.path !== '')
        .map((l) => `${l.path}=${l.size}`)
        .sort();
      // du's line for the root itself: its whole total.
      const total = lines.find((l) => l.path === '')?.size;
      for (const host of ['viaagent', 'viassh', 'viasftp']) {
        const { structured, text } = await call('disk_usage', { host, path: root, depth });
        const got = (structured.rows as Json[]).map((r) => `${r.path}=${r.size}`).sort();
        assert.deepEqual(got, want, `${host} depth ${depth}`);
        assert.deepEqual(structured.path_totals, [{ host, size: total }], `${host} depth ${depth}`);
        assert.ok(text.includes(`(${total} bytes)  ${root}`), text);
        assert.match(text, /#/);
      }
    }
  });

  it("disk_usage: du's total whether the listing gives it (every depth-1 directory ranked) or a total walk does (one ranked out)", async () => {
    const duOf = (depth: number) => {
      const lines = du(duRoot, depth);
      return {
        total: lines.find((l) => l.path === '')?.size,
        largest: lines.filter((l) => l.path !== '').sort((a, b) => b.size - a.size)[0],
      };
    };
    const check = async (hosts: string[], why: string) => {
      // depth 1: big/ and small/ both in the listing; depth 2, top_n 1: 1000 of big/'s directories outrank small/.
      for (const depth of [1, 2]) {
        const du = duOf(depth);
        for (const host of hosts) {
          const { structured } = await call('disk_usage', { host, path: duRoot, depth, top_n: 1 });
          assert.deepEqual(structured.path_totals, [{ host, size: du.total }], `${host} depth ${depth} ${why}`);
          assert.deepEqual(
            (structured.rows as Json[]).map((r) => ({ size: r.size, path: r.path })),
            [du.largest],
            `${host} depth ${depth} ${why}`,
          );
        }
      }
    };
    await check(['viaagent', 'viassh', 'viasftp'], 'files at the top');
    // Two names of one file at the top: du counts it once. SFTP cannot say inodes, so it is left out.
    linkSync(join(duRoot, 'a.log'), join(duRoot, 'a-again.log'));
    await check(['viaagent', 'viassh'], 'a hard link at the top');
  });

  it('the CLI: ls with filter flags, diff and du over the mixed fleet', async () => {
    const ls = await fleetls([
      '--inventory',
      inventory,
      'ls',
      `viaagent,viassh:${root}`,
      '--max-depth',
      '3',
      '--min-size',
      '1M',
      '--modified-after',
      new Date(T0 * 1000).toISOString(),
      '--json',
    ]);
    assert.equal(ls.code, 0, ls.stderr);
    assert.deepEqual([...new Set((JSON.parse(ls.stdout).items as Json[]).map((i) => i.path))].sort(), [
      'log/app.log',
      'log/app.log.1',
    ]);
    const perm = await fleetls([
      '--inventory',
      inventory,
      'ls',
      `viasftp:${root}`,
      '--max-depth',
      '3',
      '--perm',
      '/o+w',
    ]);
    assert.equal(perm.code, 0, perm.stderr);
    assert.match(perm.stdout, /etc\/world\.conf/);
    assert.doesNotMatch(perm.stdout, /app\.conf/);
    const bad = await fleetls(['--inventory', inventory, 'ls', `viaagent:${root}`, '--perm', 'rwx']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /perm: "rwx" is not a mode/);

    const diff = await fleetls(['--inventory', inventory, 'diff', `all:${root}`, '--depth', '3']);
    assert.equal(diff.code, 1, 'a dead host makes the exit status non-zero');
    assert.match(diff.stdout, /A {2}3 hosts \(baseline\): viaagent, viassh, viasftp\nB {2}1 host: oddagent/);
    assert.match(diff.stdout, /etc\/extra\.conf\n {2}A: absent\n {2}B: file size 1 mode 0644/);
    assert.match(diff.stderr, /nowhere/);

    const du = await fleetls(['--inventory', inventory, 'du', `viaagent,viassh:${root}`, '--depth', '2']);
    assert.equal(du.code, 0, du.stderr);
    const lines = du.stdout.trim().split('\n');
    assert.match(lines[0], /SIZE\s+ON DISK\s+HOST\s+PATH/);
    // du's last line, once per host: the root's own total.
    assert.deepEqual(
      lines.slice(-2).map((l) => l.replace(/^total {2}\S+ \S+ \(\d+ bytes\) {2}(\S+) {2}/, '$1 ')),
      [`viaagent ${root}`, `viassh ${root}`],
    );
    // SIZE as du -b, ON DISK as du: the log is written sparse, so it takes one block.
    assert.match(lines[1], /^ *\d+(\.\d)? MiB +4\.0 KiB {2}#{24} {2}via(agent|ssh) +\S+\/log$/);
  });
});
