// The gateway's .deb beside the agent's, for real, on a host without Node: both installed
// with dpkg, the installed agent (its unit's ExecStart as its user) and the installed
// gateway run in a mount namespace where this machine's node is /dev/null and PATH is the
// system's; the gateway's CLI lists through the agent, and `localhost` through the agent it
// embeds, by fstatat through its own installed module (/usr/lib/fleetls/fsat.node, seen
// under strace); its unit's ExecStart (serve --http with the token made at install)
// answers an MCP list_directory through the agent. Purging the gateway leaves the agent's
// files. Holds holdPackageLock (packages.test.ts). Needs root.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { launch, run } from '@fleetls/testkit';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SYSTEM_PATH, startAsUnit, UNIT_FILE, unitSetting, userIds, withoutNode } from '../helpers/installed-agent.js';
import { buildPackage, holdPackageLock, sh } from '../helpers/packages.js';

const CONFIG = '/etc/fleetls/agent.yaml';
const MODULE = '/usr/lib/fleetls/fsat.node';

if (process.getuid?.() !== 0) throw new Error('the package tests install packages: run them as root, as CI does');

before(holdPackageLock);

/** Runs `command args` as `ids` in withoutNode's namespace; resolves with its output or rejects with it. */
async function runWithoutNode(command: string, args: string[], ids: { uid: number; gid: number }): Promise<string> {
  const r = await run(...withoutNode(command, args, ids), { env: { PATH: SYSTEM_PATH } });
  if (r.code !== 0) throw new Error(`${command} exited ${r.code}:\n${r.stderr}`);
  return r.stdout;
}

describe('fleetls (gateway) .deb beside the agent, on a host without node', { concurrency: false }, () => {
  const tmp = mkdtempSync(join(tmpdir(), 'fleetls-gw-deb-'));
  const tree = join(tmp, 'tree');
  const GATEWAY_YAML = '/etc/fleetls/gateway.yaml';
  const TOKEN = '/etc/fleetls/gateway/token';
  let gwDeb: string;
  let agent: Awaited<ReturnType<typeof startAsUnit>> | undefined;

  before(async () => {
    gwDeb = buildPackage(join(tmp, 'dist'), 'deb', '0.0.1~test1', 'fleetls');
    const agentDeb = buildPackage(join(tmp, 'dist'), 'deb', '0.0.1~test1');
    mkdirSync(join(tree, 'logs'), { recursive: true });
    writeFileSync(join(tree, 'logs', 'a.log'), 'aaa');
    chmodSync(tmp, 0o755);
    for (const p of ['fleetls', 'fleetls-agent']) execFileSync('dpkg', ['--purge', p], { stdio: 'pipe' });
    sh('dpkg', ['--force-unsafe-io', '-i', gwDeb, agentDeb]);
    writeFileSync(CONFIG, `listen: 127.0.0.1:0\ninsecure_loopback: true\nallow: [${tree}]\n`);
    agent = await startAsUnit(UNIT_FILE, 15_000, true);
    // The operator's edit: the one host, through the agent the other package installed.
    writeFileSync(GATEWAY_YAML, `hosts:\n  here:\n    agent: 127.0.0.1:${agent.port}\nagent_tls: insecure\n`);
  });
  after(async () => {
    await agent?.stop();
    for (const p of ['fleetls', 'fleetls-agent']) execFileSync('dpkg', ['--purge', p], { stdio: 'pipe' });
    rmSync(tmp, { recursive: true, force: true });
  });

  it('holds the executable, fleetls.service and gateway.yaml, and depends on no nodejs', () => {
    const files = sh('dpkg-deb', ['--contents', gwDeb]);
    for (const f of [
      'usr/bin/fleetls',
      'usr/lib/fleetls/fsat.node',
      'usr/lib/systemd/system/fleetls.service',
      'etc/fleetls/gateway.yaml',
    ]) {
      assert.match(files, new RegExp(`\\./${f.replace(/\./g, '\\.')}\\n`));
    }
    assert.doesNotMatch(sh('dpkg-deb', ['--field', gwDeb, 'Depends']), /node/);
  });

  it('ships a README that says what it installed, how to configure, start and use it, and where the docs are', () => {
    const readme = readFileSync('/usr/share/doc/fleetls/README', 'utf8');
    assert.match(readme, /^fleetls 0\.0\.1~test1: /);
    for (const heading of [
      'What this package installs',
      'Configure',
      'Start, check, use',
      'Without systemd',
      'Remove',
      'Documentation',
    ]) {
      assert.match(readme, new RegExp(`^${heading}`, 'm'), heading);
    }
    // Every file it names is one the package installed (the token: made at install).
    const installed = new Set([...sh('dpkg', ['-L', 'fleetls']).trim().split('\n'), TOKEN]);
    const named = [...readme.matchAll(/^ {2}(\/\S+)/gm)].map((m) => m[1] as string);
    assert.ok(named.length >= 5, named.join(' '));
    assert.deepEqual(
      named.filter((f) => !installed.has(f)),
      [],
    );
    // Its server command without systemd is the unit's own ExecStart, at the unit's address.
    const unit = readFileSync('/usr/lib/systemd/system/fleetls.service', 'utf8');
    const exec = /^ExecStart=(.*)$/m.exec(unit)?.[1]?.replace(/\$\{FLEETLS_HTTP\}/, '127.0.0.1:8765') ?? '';
    const pasted = (readme.split(/^Without systemd.*$/m)[1] ?? '').replace(/\\\n\s*/g, '');
    assert.ok(pasted.includes(exec), `${exec} in\n${pasted}`);
  });

  it('installs its own user, gateway.yaml readable by it, and a bearer token only it can read', () => {
    const ids = userIds('fleetls-gateway');
    assert.ok(ids && ids.uid < 1000, 'system user fleetls-gateway');
    const token = statSync(TOKEN);
    assert.equal(token.mode & 0o777, 0o640);
    assert.equal(token.gid, ids.gid);
    assert.match(readFileSync(TOKEN, 'utf8'), /^[0-9a-f]{64}$/);
    assert.equal(statSync(GATEWAY_YAML).gid, ids.gid);
    assert.equal(statSync(MODULE).mode & 0o777, 0o644);
  });

  it('the installed fleetls CLI, as its user without node, lists through the installed agent', async () => {
    const ids = userIds('fleetls-gateway')!;
    const out = await runWithoutNode(
      '/usr/bin/fleetls',
      ['--inventory', GATEWAY_YAML, 'ls', `here:${tree}/logs`, '--json'],
      ids,
    );
    const answer = JSON.parse(out) as { items: { path: string }[] };
    assert.deepEqual(
      answer.items.map((i) => i.path),
      ['a.log'],
    );
  });

  it('the installed fleetls CLI, as its user without node, lists localhost by fstatat through its own installed module', async () => {
    const ids = userIds('fleetls-gateway')!;
    // strace on stderr (-z: only the calls that succeeded, each on one line): the module
    // opened from /usr/lib/fleetls, then each entry stat'ed by its name in its directory's
    // descriptor (the /proc/self/fd route stats a path instead).
    const traced = ['-f', '-qq', '-z', '-e', 'trace=openat,newfstatat,statx', '/usr/bin/fleetls'];
    const r = await run(...withoutNode('strace', [...traced, 'ls', `localhost:${tree}/logs`, '--json'], ids), {
      env: { PATH: SYSTEM_PATH, FLEETLS_INVENTORY: '' },
    });
    assert.equal(r.code, 0, r.stderr);
    const answer = JSON.parse(r.stdout) as { items: { path: string }[] };
    assert.deepEqual(
      answer.items.map((i) => i.path),
      ['a.log'],
    );
    assert.match(r.stderr, /openat\(AT_FDCWD, "\/usr\/lib\/fleetls\/fsat\.node", [^)]*\) = \d+\n/);
    assert.match(r.stderr, /(?:newfstatat|statx)\(\d+, "a\.log", .*AT_SYMLINK_NOFOLLOW.*\) = 0\n/);
  });

  it("the unit's ExecStart (serve --http, the token) without node answers list_directory over MCP through the agent", async () => {
    const unit = readFileSync('/usr/lib/systemd/system/fleetls.service', 'utf8');
    // systemd's own expansion of ${FLEETLS_HTTP}, with a free port for the test.
    assert.match(unitSetting(unit, 'Environment'), /^FLEETLS_HTTP=127\.0\.0\.1:8765$/);
    const [command, ...args] = unitSetting(unit, 'ExecStart')
      .replace(/\$\{FLEETLS_HTTP\}/, '127.0.0.1:0')
      .split(/\s+/);
    const ids = userIds(unitSetting(unit, 'User'))!;
    const gw = launch(...withoutNode(command as string, args, ids), {
      name: 'fleetls serve',
      env: { PATH: SYSTEM_PATH },
    });
    const url = await gw.waitFor(/MCP over HTTP at (http:\/\/\S+)/);
    const client = new Client({ name: 'packages-test', version: '1' });
    try {
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { authorization: `Bearer ${readFileSync(TOKEN, 'utf8').trim()}` } },
        }),
      );
      const result = (await client.callTool({
        name: 'list_directory',
        arguments: { host: 'here', path: tree, depth: 2 },
      })) as { isError?: boolean; content: { type: string; text: string }[] };
      assert.ok(!result.isError, JSON.stringify(result));
      assert.match(result.content[0]?.text ?? '', /a\.log/);
    } finally {
      await client.close();
      await gw.stop();
    }
  });

  it("purge of the gateway removes its user, gateway.yaml and token, and leaves the agent's config", () => {
    sh('dpkg', ['--purge', 'fleetls']);
    assert.equal(userIds('fleetls-gateway'), undefined);
    assert.equal(existsSync(GATEWAY_YAML), false);
    assert.equal(existsSync('/etc/fleetls/gateway'), false);
    assert.ok(existsSync(CONFIG));
    assert.ok(userIds('fleetls'));
  });
});
