// The fleetls CLI as users run it: a real process, no inventory (the embedded agent),
// an inventory with a real agent and an address where nothing listens, and bad arguments.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort, makeTree, run } from '@fleetls/testkit';
import { type AgentProcess, startAgent } from '../../helpers/agent-process.js';
import { fleetls } from '../../helpers/cli.js';
import { GATEWAY_MAIN, startGateway } from '../../helpers/gateway-process.js';

/** A --json answer's hosts as [host, status] pairs. */
const hostStatuses = (a: { hosts: { host: string; status: string }[] }) => a.hosts.map((h) => [h.host, h.status]);
const WEB_OK_GONE_UNREACHABLE = [
  ['web-1', 'ok'],
  ['gone', 'unreachable'],
];

describe('fleetls CLI', { concurrency: 4 }, () => {
  const tmp = mkdtempSync(join(tmpdir(), 'fleetls-cli-'));
  const tree = join(tmp, 'tree');
  const cwd = join(tmp, 'cwd'); // no fleetls.yaml here
  let agent: AgentProcess;
  let inventory: string;

  before(async () => {
    makeTree(tree, {
      'a.txt': 'x'.repeat(10),
      'C.log': 'x'.repeat(3000),
      'b-dir/inner.txt': 'x'.repeat(5),
      'b-dir/deeper/deep.txt': '',
      link: { link: 'a.txt' },
    });
    mkdirSync(cwd);
    agent = await startAgent({ allow: [tree] });
    const dead = await freePort();
    inventory = join(tmp, 'fleetls.yaml');
    writeFileSync(
      inventory,
      [
        'hosts:',
        `  web-1: { agent: "${agent.address}", labels: { role: web } }`,
        `  gone: { agent: "127.0.0.1:${dead}", labels: { role: web } }`,
        'groups: { prod: [web-1, gone] }',
        'agent_tls: insecure',
        '',
      ].join('\n'),
    );
  });
  after(async () => {
    await agent?.stop();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('tree localhost:DIR works with no inventory and no daemon', async () => {
    const r = await fleetls(['tree', `localhost:${tree}`], { cwd });
    assert.equal(r.stderr, '');
    assert.equal(r.code, 0);
    assert.equal(
      r.stdout,
      [
        tree,
        '├── a.txt  10 B',
        '├── b-dir/',
        '│   ├── deeper/',
        '│   └── inner.txt  5 B',
        '├── C.log  2.9 KiB',
        '└── link -> a.txt  5 B',
        '',
      ].join('\n'),
    );
  });

  it('takes a bare absolute path as localhost, and --depth', async () => {
    const r = await fleetls(['tree', tree, '--depth', '3'], { cwd });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /│ {3}├── deeper\/\n│ {3}│ {3}└── deep\.txt {2}0 B\n/);
  });

  it('--json prints the structured answer', async () => {
    const r = await fleetls(['tree', `localhost:${tree}`, '--depth', '1', '--json'], { cwd });
    assert.equal(r.code, 0, r.stderr);
    const a = JSON.parse(r.stdout);
    assert.equal(a.path, tree);
    // One level: every row is directly in the path (no directory table), its name its path.
    assert.deepEqual(a.dirs, []);
    assert.deepEqual(
      a.entries.map((e: { name: string; type?: string }) => [e.name, e.type ?? 'file (absent)']),
      [
        ['a.txt', 'file (absent)'],
        ['b-dir', 'directory'],
        ['C.log', 'file (absent)'],
        ['link', 'symlink'],
      ],
    );
    assert.deepEqual(
      a.hosts.map((h: { host: string; status: string; via: string }) => [h.host, h.status, h.via]),
      [['localhost', 'ok', 'embedded']],
    );
  });

  it('ls ranks and pages', async () => {
    const r = await fleetls(
      ['ls', `localhost:${tree}`, '--order-by', 'size', '--desc', '--max-depth', '2', '--type', 'file'],
      { cwd },
    );
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trimEnd().split('\n');
    assert.match(lines[0], /^TYPE +SIZE +MODIFIED +PATH$/);
    assert.deepEqual(
      lines.slice(1).map((l) => l.split(/ {2,}/).at(-1)),
      ['C.log', 'a.txt', 'b-dir/inner.txt', 'b-dir/deeper/deep.txt'],
    );
    // Name order pages by resuming the walk: each page goes on after the last row shown, to the end.
    const seen: string[] = [];
    let cursor: string | undefined;
    let last: { total?: number; next_cursor?: string } = {};
    do {
      const page = ['ls', `localhost:${tree}`, '--limit', '1', '--json', ...(cursor ? ['--cursor', cursor] : [])];
      const j = JSON.parse((await fleetls(page, { cwd })).stdout);
      assert.equal(j.kind, 'files.list');
      assert.equal(j.count, 1);
      seen.push(j.items[0].path);
      last = j;
      cursor = j.next_cursor;
    } while (cursor !== undefined && seen.length < 10);
    assert.deepEqual(seen, ['a.txt', 'b-dir', 'C.log', 'link']);
    assert.equal(last.total, 4);
  });

  it('ls lists every type by default, as ls does, in path order, and --help states the defaults', async () => {
    const r = await fleetls(['ls', `localhost:${tree}`, '--max-depth', '1'], { cwd });
    assert.equal(r.code, 0, r.stderr);
    const rows = r.stdout
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((l) => [l.split(/ +/)[0], l.split(/ {2,}/).at(-1)]);
    assert.deepEqual(rows, [
      ['file', 'a.txt'],
      ['directory', 'b-dir'],
      ['directory', 'b-dir/deeper'],
      ['file', 'b-dir/inner.txt'],
      ['file', 'C.log'],
      ['symlink', 'link -> a.txt'],
    ]);
    const help = await fleetls(['ls', '--help'], { cwd });
    // The help is derived from list_files' schema, with the CLI's own default for --type.
    assert.match(help.stdout, /--type <type> +row type \(default any\)/);
    assert.match(help.stdout, /--order-by <order-by> +sort key \(name = path order\) \(default\s+name\)/);
    // The CLI shows every row (it follows the pages) unless --limit asks for a page.
    assert.match(help.stdout, /--limit <n> +rows per page \(default: every row,\s+fetched a page at a time; 1-5000\)/);
  });

  it('stat describes one path', async () => {
    const r = await fleetls(['stat', `localhost:${join(tree, 'a.txt')}`], { cwd });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^ {2}type {5}file$/m);
    assert.match(r.stdout, /^ {2}size {5}10 B$/m);
    assert.match(r.stdout, /^ {2}mode {5}0\d{3} \(-rw/m);
  });

  it('hosts lists the inventory; --check probes it and fails for the dead host', async () => {
    const plain = await fleetls(['--inventory', inventory, 'hosts'], { cwd });
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stdout, /^HOST +TRANSPORT +ADDRESS +LABELS +GROUPS$/m);
    assert.match(plain.stdout, /^web-1 +agent +127\.0\.0\.1:\d+ +role=web +prod$/m);
    const checked = await fleetls(['--inventory', inventory, 'hosts', '--check', '--json'], { cwd });
    assert.equal(checked.code, 1);
    assert.deepEqual(hostStatuses(JSON.parse(checked.stdout)), WEB_OK_GONE_UNREACHABLE);
    // Issue 40, item 13: the dead host's failure is said once (stderr), not in the table too.
    const human = await fleetls(['--inventory', inventory, 'hosts', '--check'], { cwd });
    assert.equal(human.code, 1);
    assert.equal(`${human.stdout}${human.stderr}`.match(/ECONNREFUSED/g)?.length, 1, `${human.stdout}${human.stderr}`);
    assert.match(human.stderr, /^fleetls: gone: unreachable /m);
  });

  it('exits 1 when a host is unreachable, still printing the others', async () => {
    const r = await fleetls(['tree', `@prod:${tree}`, '--depth', '1'], { cwd, env: { FLEETLS_INVENTORY: inventory } });
    assert.equal(r.code, 1);
    assert.match(r.stdout, new RegExp(`^web-1:${tree}\n├── a\\.txt`, 'm'));
    assert.match(
      r.stderr,
      /^fleetls: gone: unreachable via agent after \d+ ms: agent 127\.0\.0\.1:\d+: .*ECONNREFUSED/m,
    );
  });

  it('reads ./fleetls.yaml from the working directory', async () => {
    const r = await fleetls(['ls', `label:role=web:${tree}`, '--json'], {
      cwd: tmp,
      env: { FLEETLS_INVENTORY: undefined },
    });
    assert.equal(r.code, 1);
    const a = JSON.parse(r.stdout);
    assert.deepEqual(hostStatuses(a), WEB_OK_GONE_UNREACHABLE);
    assert.ok(a.items.every((i: { host: string }) => i.host === 'web-1'));
  });

  // The full table of usage errors runs in-process (packages/gateway/src/faces/cli/run.test.ts).
  const usage: [string, string[], RegExp][] = [
    ['a missing argument', ['tree'], /missing required argument 'SELECTOR:PATH'/],
    ['an out-of-bounds value', ['tree', '/x', '--depth', '99'], /--depth must be an integer from 1 to 10/],
    ['an unknown host', ['tree', 'nope:/x'], /unknown host 'nope'; known hosts: localhost/],
    ['a missing inventory', ['--inventory', 'missing.yaml', 'hosts'], /missing\.yaml: cannot read it \(no such file\)/],
  ];
  for (const [what, args, re] of usage) {
    it(`exits 2 on ${what}`, async () => {
      const r = await fleetls(args, { cwd });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, re);
      assert.equal(r.stdout, '');
    });
  }

  it('exits 2 on an invalid inventory, listing every problem', async () => {
    const bad = join(tmp, 'bad.yaml');
    writeFileSync(bad, 'hosts:\n  web-1: { agent: "x" }\n  web-2: { agent: "h:1" }\n  db: {}\n');
    const r = await fleetls(['--inventory', bad, 'hosts'], { cwd });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /invalid inventory .*bad\.yaml: 3 problems:/);
    assert.match(r.stderr, /- hosts\.web-1\.agent: expected "host:port" or "ssh:\/path\/to\/agent\.sock", got "x"/);
    assert.match(r.stderr, /- hosts\.db: needs `agent`/);
    assert.match(r.stderr, /- agent_tls: required when a host has an `agent`/);
  });

  it('serve --http prints its URL on stderr, never stdout, and stops on SIGTERM', async () => {
    // Without an inventory a network face serves localhost only under --allow.
    const gw = startGateway(
      ['--http', '127.0.0.1:0', '--allow', tree],
      { FLEETLS_INVENTORY: '', FLEETLS_TOKEN: 'tok' },
      { cwd },
    );
    const url = await gw.waitFor(/MCP over HTTP at (\S+)/);
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    assert.equal((await fetch(url, { method: 'POST', body: '{}' })).status, 401);
    assert.equal(await gw.stop('SIGTERM'), 0);
    assert.equal(gw.stdout(), '');
  });
});

describe('fleetls CLI shows every entry once, and says when a path failed', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'fleetls-cli-all-'));
  const many = join(tmp, 'many');
  const locked = join(tmp, 'locked');
  const FILES = 5_050; // past one page of the largest --limit (5,000)
  before(() => {
    mkdirSync(many);
    for (let i = 0; i < FILES; i++) writeFileSync(join(many, `f${String(i).padStart(5, '0')}`), '');
    makeTree(locked, { 'open/y.txt': 'y', 'private/x.txt': 'x' });
    chmodSync(join(locked, 'private'), 0o700);
    // nobody reaches the tree but not into private/ (the test runs as root, which reads everything).
    for (const d of [tmp, locked, join(locked, 'open')]) chmodSync(d, 0o755);
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  /** The CLI as the user nobody (uid 65534), who cannot read private/. */
  const asNobody = (args: string[]) =>
    run('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, GATEWAY_MAIN, ...args], {
      cwd: tmp,
      env: { ...process.env, FLEETLS_INVENTORY: '', NO_COLOR: '1' },
    });

  it('ls follows the pages to the last entry; --limit prints one page and its cursor', async () => {
    const all = await fleetls(['ls', `localhost:${many}`], { cwd: tmp });
    assert.equal(all.code, 0, all.stderr);
    const rows = all.stdout.trimEnd().split('\n').slice(1);
    assert.equal(rows.length, FILES);
    assert.match(rows.at(-1) ?? '', / f05049$/);
    assert.doesNotMatch(all.stderr, /more: --cursor/);
    assert.match(all.stderr, new RegExp(`Showing 1-${FILES} of ${FILES} entries`));
    const page = await fleetls(['ls', `localhost:${many}`, '--limit', '10'], { cwd: tmp });
    assert.equal(page.code, 0, page.stderr);
    assert.equal(page.stdout.trimEnd().split('\n').length, 11);
    assert.match(page.stderr, /more: --cursor \S+/);
  });

  it('on a terminal the progress line is there from the start, with the time taken', async () => {
    // script(1) gives the CLI a terminal; a walk of one host shows it is under way before it answers.
    const r = await run(
      'script',
      ['-qfec', `${process.execPath} ${GATEWAY_MAIN} tree localhost:${many} --depth 1`, '/dev/null'],
      {
        cwd: tmp,
        env: { ...process.env, FLEETLS_INVENTORY: '', NO_COLOR: '1' },
      },
    );
    assert.equal(r.code, 0, r.stdout);
    const frames = r.stdout
      .split('\x1b[2K')
      .flatMap((f) => f.split('\r'))
      .filter((f) => f.trim() !== '');
    assert.match(frames[0] ?? '', /^asking hosts… · 0 s$/);
    assert.ok(
      frames.some((f) => /^\[#{20}\] 1\/1 hosts answered \(localhost: ok\) · \d+ s$/.test(f)),
      frames.slice(0, 5).join(' | '),
    );
  });

  it('--help gives examples and the exit codes', async () => {
    const r = await fleetls(['--help'], { cwd: tmp });
    assert.equal(r.code, 0);
    assert.match(r.stdout, /Examples:\n {2}fleetls tree localhost:\/etc --depth 1\n/);
    assert.match(
      r.stdout,
      /Exit status:\n {2}0 {2}every host answered and every path was listed\n {2}1 {2}some host or path failed.*\n {2}2 {2}usage: /,
    );
  });

  it('tree shows a directory it cannot read once, with its error, and exits 1', async () => {
    const r = await asNobody(['tree', `localhost:${locked}`]);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(
      r.stdout,
      [locked, '├── open/', '│   └── y.txt  1 B', '└── private/ [DENIED] permission denied', ''].join('\n'),
    );
  });

  it('ls shows it once too, and exits 1', async () => {
    const r = await asNobody(['ls', `localhost:${locked}`, '--max-depth', '2']);
    assert.equal(r.code, 1, r.stderr);
    const paths = r.stdout
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((l) => l.split(/ {2,}/).at(-1));
    assert.deepEqual(paths, ['open', 'open/y.txt', 'private [DENIED] permission denied']);
  });
});

describe("fleetls CLI on a gateway host reads the installed gateway's inventory", () => {
  const tmp = mkdtempSync(join(tmpdir(), 'fleetls-cli-system-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));

  /**
   * The CLI in a mount namespace whose /etc has the gateway package's inventory (an overlay:
   * the machine's /etc is left as it is), run with `env`, from a directory without fleetls.yaml.
   */
  const onGatewayHost = (args: string[], env: NodeJS.ProcessEnv) => {
    const inventory = join(tmp, 'gateway.yaml');
    writeFileSync(inventory, ['hosts:', '  gw-web-1: { agent: "127.0.0.1:1" }', 'agent_tls: insecure', ''].join('\n'));
    const ovl = join(tmp, 'ovl');
    mkdirSync(ovl, { recursive: true });
    const script = [
      'set -e',
      'mount --make-rprivate /',
      `mount -t tmpfs tmpfs ${ovl}`,
      `mkdir ${ovl}/up ${ovl}/work`,
      `mount -t overlay overlay -o lowerdir=/etc,upperdir=${ovl}/up,workdir=${ovl}/work /etc`,
      'mkdir -p /etc/fleetls',
      `cp ${inventory} /etc/fleetls/gateway.yaml`,
      'exec "$@"',
    ].join('\n');
    return run('unshare', ['-m', 'sh', '-c', script, 'sh', process.execPath, GATEWAY_MAIN, ...args], {
      cwd: tmp,
      env,
    });
  };
  const hostsOf = (stdout: string) => (JSON.parse(stdout) as { hosts: { host: string }[] }).hosts.map((h) => h.host);

  it('lists the hosts of /etc/fleetls/gateway.yaml when nothing else names an inventory', async () => {
    const { FLEETLS_INVENTORY: _, ...env } = process.env;
    const r = await onGatewayHost(['hosts', '--json'], env);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(hostsOf(r.stdout), ['gw-web-1']);
  });

  it('keeps to none when $FLEETLS_INVENTORY is set empty (localhost only)', async () => {
    const r = await onGatewayHost(['hosts', '--json'], { ...process.env, FLEETLS_INVENTORY: '' });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(hostsOf(r.stdout), ['localhost']);
  });
});
