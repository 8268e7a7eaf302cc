// Confinement under a race, as an attacker runs it (issue 18): an unprivileged user who owns
// a directory inside an allowed root swaps one of its directories with a symlink to a
// directory outside every root (renameat2 RENAME_EXCHANGE, in a loop, from Python's ctypes)
// while every tool is called, for RACE_MS each, against a real agent running as another
// unprivileged user with CAP_DAC_READ_SEARCH (as the packaged unit runs it: it can read any
// directory of the host) and against the embedded backend (the gateway's localhost). Not
// one answer may carry an outside name or outside metadata: the agent reads by descriptor
// (packages/agent/src/fs/beneath.ts), so a name swapped for a symlink is never followed.
// What is outside is recognisable in any answer: every name holds OUTSIDE, every mtime is
// 2001-02-03, every file is sparse and 5 TiB long (so any size or sum that counts one is
// at least that). Needs root (setpriv, chown), as CI runs.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLocalBackend } from '@fleetls/agent';
import { createLogger, loadFleet, resolveGatewayOptions, type ToolContext } from '@fleetls/gateway';
import { callTool } from '@fleetls/gateway/testing';
import { type AgentProcess, startAgent } from '../helpers/agent-process.js';

/** How long each tool is called against each backend (all at once). */
const RACE_MS = 20_000;
const ATTACKER = 61_001;
const AGENT_USER = 61_002;
const OUTSIDE_SIZE = 5 * 2 ** 40;
const OUTSIDE_TIME = new Date('2001-02-03T04:05:06Z');
const logger = createLogger({ name: 'race', level: 'silent' });

/** The swapper: exchanges `a` and `b` until killed, then prints how many times it did. */
const SWAPPER = `
import ctypes, os, signal, sys
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, RENAME_EXCHANGE = -100, 2
a, b = sys.argv[1].encode(), sys.argv[2].encode()
n = 0
def done(*_):
    print(n, flush=True)
    sys.exit(0)
signal.signal(signal.SIGTERM, done)
print('swapping', flush=True)
while True:
    if libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) != 0:
        sys.exit('renameat2: errno %d' % ctypes.get_errno())
    n += 1
    # Lets the walks run between swaps: a loop that never yields holds the directory's
    # lock and slows every lookup in it, the tools' and the kernel's alike.
    os.sched_yield()
`;

/** What betrays the outside directory in an answer (its text or its structured content). */
export function leak(answer: { text: string; structured: unknown }): string | undefined {
  for (const s of [answer.text, JSON.stringify(answer.structured)]) {
    if (s.includes('OUTSIDE')) return 'an outside name';
    if (s.includes('2001-02-03')) return 'an outside mtime';
  }
  let big: number | undefined;
  JSON.stringify(answer.structured, (_k, v) => {
    if (typeof v === 'number' && v >= OUTSIDE_SIZE) big = v;
    return v;
  });
  return big === undefined ? undefined : `a size counting an outside file (${big})`;
}

/** The tools and their arguments: each walks through the swapped name, or starts below it. */
function calls(host: string, root: string): { name: string; args: Record<string, unknown> }[] {
  const swap = join(root, 'swap');
  return [
    { name: 'list_directory', args: { host, path: root, depth: 4 } },
    { name: 'list_directory', args: { host, path: join(swap, 'deep'), depth: 2 } },
    { name: 'list_files', args: { host, path: root, max_depth: 3, type: 'any' } },
    {
      name: 'list_files',
      args: { host, path: root, max_depth: 3, type: 'file', order_by: 'size', sort: 'descending', top_n: 50 },
    },
    { name: 'list_directories', args: { host, path: root } },
    { name: 'stat', args: { host, path: join(swap, 'same-name') } },
    { name: 'disk_usage', args: { host, path: root, depth: 2 } },
    { name: 'diff_directory', args: { host, path: root, depth: 3 } },
  ];
}

interface Tally {
  calls: number;
  answered: number;
  leaks: string[];
}

/** Calls one tool in a loop until `until`, checking every answer. */
async function hammer(ctx: ToolContext, name: string, args: Record<string, unknown>, until: number): Promise<Tally> {
  const t: Tally = { calls: 0, answered: 0, leaks: [] };
  while (Date.now() < until) {
    t.calls++;
    let answer: { text: string; structured: unknown };
    try {
      answer = await callTool(name, ctx, args);
    } catch (err) {
      // A tool error is a refusal: it carries no listing (its text is checked all the same).
      answer = { text: String(err), structured: {} };
    }
    const found = leak(answer);
    if (found) t.leaks.push(`${found}: ${answer.text.slice(0, 400)}`);
    else if (!answer.text.includes('error')) t.answered++;
    // A Stat answers in a millisecond: without a pause its loop would hold the test's one
    // event loop and libuv pool, and starve the walks it races with.
    await sleep(5);
  }
  return t;
}

function waitLine(child: ChildProcess, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (d: string) => {
      out += d;
      if (out.includes(what)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`swapper exited ${code} before "${what}"`)));
  });
}

describe('confinement under a symlink race', () => {
  const work = mkdtempSync(join(tmpdir(), 'fleetls-race-'));
  const root = join(work, 'root');
  const outside = join(work, 'outside');
  let agent: AgentProcess;
  let swapper: ChildProcess;

  before(async () => {
    chmodSync(work, 0o755);
    // Outside: readable by root alone; the agent reads it only through its capability.
    for (const dir of [outside, join(outside, 'OUTSIDE-DIR'), join(outside, 'deep')])
      mkdirSync(dir, { recursive: true });
    for (const f of ['OUTSIDE-SECRET', 'same-name', 'OUTSIDE-DIR/OUTSIDE-NESTED', 'deep/OUTSIDE-DEEP']) {
      writeFileSync(join(outside, f), '');
      truncateSync(join(outside, f), OUTSIDE_SIZE);
    }
    for (const p of [
      'OUTSIDE-SECRET',
      'same-name',
      'OUTSIDE-DIR/OUTSIDE-NESTED',
      'deep/OUTSIDE-DEEP',
      'OUTSIDE-DIR',
      'deep',
      '.',
    ])
      utimesSync(join(outside, p), OUTSIDE_TIME, OUTSIDE_TIME);
    chmodSync(outside, 0o700);
    // Inside: the attacker's own directory, with the same shape and names of its own.
    mkdirSync(join(root, 'swap', 'deep'), { recursive: true });
    mkdirSync(join(root, 'plain'));
    writeFileSync(join(root, 'plain', 'inside-plain'), 'p');
    writeFileSync(join(root, 'swap', 'same-name'), 'seven b');
    writeFileSync(join(root, 'swap', 'inside-1'), 'i');
    writeFileSync(join(root, 'swap', 'deep', 'inside-deep'), 'd');
    symlinkSync(outside, join(root, 'swap-link'));
    for (const p of [
      '',
      'swap',
      'swap/deep',
      'plain',
      'plain/inside-plain',
      'swap/same-name',
      'swap/inside-1',
      'swap/deep/inside-deep',
    ])
      chownSync(join(root, p), ATTACKER, ATTACKER);
    chownSync(join(root, 'swap-link'), ATTACKER, ATTACKER);

    agent = await startAgent({
      allow: [root],
      wrap: [
        'setpriv',
        `--reuid=${AGENT_USER}`,
        `--regid=${AGENT_USER}`,
        '--clear-groups',
        '--inh-caps=+dac_read_search',
        '--ambient-caps=+dac_read_search',
      ],
      // 8 walks of this test at once on a loaded machine: no lstat may count as a hung mount.
      args: ['--fs-timeout-ms', '60000', '--max-concurrent-walks', '32'],
      // The ranked walks must be find's on this small tree (find-route.ts FIND_AFTER_ENTRIES).
      env: { FLEETLS_FIND_AFTER_ENTRIES: '0' },
    });
  });

  after(async () => {
    if (swapper?.exitCode === null) swapper.kill('SIGKILL');
    await agent?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('answers no outside name or metadata while a directory and a symlink to outside are swapped', async () => {
    const inventory = join(work, 'fleet.yaml');
    writeFileSync(inventory, `hosts:\n  victim: { agent: "${agent.address}" }\nagent_tls: insecure\n`);
    const options = resolveGatewayOptions();
    const signal = new AbortController().signal;
    const viaAgent: ToolContext = { fleet: await loadFleet({ inventoryPath: inventory, logger }), options, signal };
    // The embedded backend, as a gateway without an inventory serves localhost, confined to the root.
    const embedded = await loadFleet({
      env: { FLEETLS_INVENTORY: '' },
      cwd: work,
      logger,
      factories: { embedded: () => createLocalBackend({ allowedRoots: [root] }) },
    });
    const viaEmbedded: ToolContext = { fleet: embedded, options, signal };

    // The agent probes for GNU find on its first ranked walk (find-route.ts): done before the race.
    await callTool('list_files', viaAgent, calls('victim', root)[3].args);
    swapper = spawn(
      'setpriv',
      [
        `--reuid=${ATTACKER}`,
        `--regid=${ATTACKER}`,
        '--clear-groups',
        '/usr/bin/python3',
        '-c',
        SWAPPER,
        join(root, 'swap'),
        join(root, 'swap-link'),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await waitLine(swapper, 'swapping');
    const until = Date.now() + RACE_MS;
    const runs = [
      ...calls('victim', root).map((c) => ({ backend: 'agent', ...c, ctx: viaAgent })),
      ...calls('localhost', root).map((c) => ({ backend: 'embedded', ...c, ctx: viaEmbedded })),
    ];
    const tallies = await Promise.all(runs.map((r) => hammer(r.ctx, r.name, r.args, until)));
    const swapped = new Promise<string>((resolve) => swapper.stdout?.on('data', (d: Buffer) => resolve(String(d))));
    swapper.kill('SIGTERM');
    const swaps = Number((await swapped).trim());

    const report = runs.map(
      (r, i) =>
        `${r.backend} ${r.name} ${JSON.stringify(r.args.path)}: ${tallies[i].leaks.length} leaks of ${tallies[i].calls} calls (${tallies[i].answered} answered without error)`,
    );
    process.stdout.write(`# ${swaps} swaps\n# ${report.join('\n# ')}\n`);
    const leaks = tallies.flatMap((t, i) => t.leaks.map((l) => `${runs[i].backend} ${runs[i].name}: ${l}`));
    assert.deepEqual(leaks.slice(0, 5), [], `${leaks.length} answers carried outside data:\n${report.join('\n')}`);
    // The race ran: the directory was swapped many times, and every tool answered during it.
    assert.ok(swaps > 1000, `only ${swaps} swaps`);
    for (const [i, t] of tallies.entries()) assert.ok(t.answered > 0, `never answered: ${report[i]}`);
    // The ranked walks went through GNU find too (find-route.ts), started at a descriptor.
    const routes = agent
      .logs()
      .filter((l) => l.msg === 'walk end')
      .map((l) => `${l.route ?? ''} ${l.fallback ?? ''}`);
    assert.ok(routes.includes('find '), `no walk of the agent took the find route: ${routes.join(', ')}`);
  });
});
