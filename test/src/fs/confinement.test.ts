// What the agent may touch, checked on a real agent process:
// - it never opens a file for reading: a tree of FIFOs, sockets, device nodes, regular files
//   and symlinks to them is walked every way (tree, ranked, directory sizes, following
//   symlinks, Stat) under strace, and every open(2) below the tree is of a directory, by
//   the agent and by the GNU find its ranked walks run;
// - pseudo file systems (real proc and sysfs mounted inside the allowed root) are listed
//   but not entered, reported as PRUNED, and listed when asked for by path; a tmpfs (real
//   data) is walked; one_file_system lists the tmpfs mount point without entering it;
//   the SSH backend (GNU find: -fstype, -xdev) gives the same rows.
// Needs root (mknod, mount, strace -p, sshd), as CI runs.
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { WalkRequest } from '@fleetls/core';
import { WALK_DEFAULTS } from '@fleetls/core';
import { createSshBackend } from '@fleetls/gateway';
import type { AgentClient, WireStatRequest } from '@fleetls/proto';
import * as grpc from '@grpc/grpc-js';
import pino from 'pino';
import { type AgentProcess, agentClient, startAgent, walkAll } from '../helpers/agent-process.js';
import { type Sshd, sshTarget, startSshd } from '../helpers/sshd.js';
import { drain, rowLines } from '../helpers/walks.js';

const CALL_MS = 20_000;
/** Opens, execs, and the stat family: how the agent reaches each name. */
const TRACED = 'open,openat,openat2,creat,execve,stat,lstat,newfstatat,statx';

function stat(client: AgentClient, req: WireStatRequest): Promise<void> {
  return new Promise((resolve, reject) =>
    client.Stat(req, new grpc.Metadata(), { deadline: Date.now() + CALL_MS }, (err) => (err ? reject(err) : resolve())),
  );
}

/** strace attached to every thread of `pid` (and those it starts), logging open calls to `log`. */
async function traceOpens(pid: number, log: string): Promise<ChildProcess> {
  const strace = spawn('strace', ['-f', '-p', String(pid), '-e', `trace=${TRACED}`, '-o', log], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  strace.stderr?.setEncoding('utf8');
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`strace did not attach: ${err}`)), 10_000);
    strace.stderr?.on('data', (d: string) => {
      err += d;
      if (err.includes('attached')) {
        clearTimeout(timer);
        resolve();
      }
    });
    strace.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`strace exited ${code}: ${err}`));
    });
  });
  return strace;
}

/**
 * An open for reading of a directory the agent already holds a descriptor of: its "." looked
 * up in it, or (an r-- directory, whose "." lookup is refused) the descriptor's own magic link
 * /proc/self/fd/N with nothing after N, as a directory. A name is never opened for reading.
 */
function readsDirByFd(l: string): boolean {
  return (
    /openat\(\d+, "\.", O_RDONLY\|.*O_DIRECTORY/.test(l) ||
    /\bopen(at)?\((AT_FDCWD, )?"\/proc\/self\/fd\/\d+", O_RDONLY\|.*O_DIRECTORY/.test(l)
  );
}

/** The processes that ran GNU find, by pid (strace -f prefixes each line with it). */
function findPids(traced: string[]): Set<string> {
  return new Set(traced.filter((l) => /execve\("[^"]*\/find"/.test(l)).map((l) => l.split(' ')[0]));
}

describe('confinement of a real agent', () => {
  const work = mkdtempSync(join(tmpdir(), 'fleetls-confine-'));
  const tree = join(work, 'tree');
  let pseudo: string;
  let sshd: Sshd;
  const mounts: string[] = [];
  let agent: AgentProcess;
  let client: AgentClient;

  before(async () => {
    sshd = await startSshd();
    // Where the sshd login user can read it too.
    pseudo = join(sshd.dir, 'pseudo');
    mkdirSync(join(tree, 'sub', 'deeper'), { recursive: true });
    writeFileSync(join(tree, 'a.txt'), 'regular file contents');
    writeFileSync(join(tree, 'sub', 'b.bin'), Buffer.alloc(4096, 1));
    writeFileSync(join(tree, 'sub', 'deeper', 'c'), 'c');
    execFileSync('mkfifo', [join(tree, 'fifo'), join(tree, 'sub', 'fifo2')]);
    execFileSync('mknod', [join(tree, 'null'), 'c', '1', '3']);
    execFileSync('mknod', [join(tree, 'sub', 'zero'), 'c', '1', '5']);
    execFileSync('mknod', [join(tree, 'loop'), 'b', '7', '200']);
    // A listening-socket file, left behind by a process that bound it and exited.
    execFileSync('/usr/bin/python3', [
      '-c',
      'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])',
      join(tree, 'sock'),
    ]);
    symlinkSync('fifo', join(tree, 'to-fifo'));
    symlinkSync('a.txt', join(tree, 'to-file'));
    symlinkSync('null', join(tree, 'to-null'));
    symlinkSync('sub', join(tree, 'to-sub'));

    for (const [type, dir] of [
      ['proc', 'proc'],
      ['sysfs', 'sys'],
      ['tmpfs', 'tmp'],
    ]) {
      const point = join(pseudo, dir);
      mkdirSync(point, { recursive: true });
      execFileSync('mount', ['-t', type, type, point]);
      mounts.push(point);
    }
    writeFileSync(join(pseudo, 'tmp', 'data'), 'tmpfs holds real files');
    writeFileSync(join(pseudo, 'plain'), 'p');

    // The ranked walk must be find's on this small tree (find-route.ts FIND_AFTER_ENTRIES).
    agent = await startAgent({ allow: [work, sshd.dir], env: { FLEETLS_FIND_AFTER_ENTRIES: '0' } });
    client = agentClient(agent.address);
  });
  after(async () => {
    client?.close();
    await agent?.stop();
    for (const m of mounts.reverse()) execFileSync('umount', ['-l', m]);
    await sshd?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('walks FIFOs, sockets and devices every way without opening anything but directories', async () => {
    const log = join(work, 'strace.log');
    const strace = await traceOpens(agent.child.pid as number, log);
    try {
      const walk = (req: Parameters<typeof walkAll>[1]) => walkAll(client, req, undefined, CALL_MS);
      const plain = await walk({ path: tree, maxDepth: 5 });
      assert.deepEqual(rowLines(plain.rows), [
        'a.txt file',
        'fifo fifo',
        'loop block',
        'null char',
        'sock socket',
        'sub dir',
        'sub/b.bin file',
        'sub/deeper dir',
        'sub/deeper/c file',
        'sub/fifo2 fifo',
        'sub/zero char',
        'to-fifo symlink',
        'to-file symlink',
        'to-null symlink',
        'to-sub symlink',
      ]);
      const ranked = await walk({ path: tree, maxDepth: 5, shape: 'SHAPE_RANKED', order: 'ORDER_SIZE', topN: 50 });
      assert.equal(ranked.rows.length, 15);
      await walk({ path: tree, maxDepth: 5, dirSizes: true, order: 'ORDER_SIZE' });
      const followed = await walk({ path: tree, maxDepth: 5, followSymlinks: true });
      assert.ok(
        rowLines(followed.rows).includes('to-fifo fifo') && rowLines(followed.rows).includes('to-sub/b.bin file'),
      );
      for (const p of ['fifo', 'a.txt', 'null', 'sock', 'loop', 'to-fifo'])
        for (const followSymlinks of [false, true]) await stat(client, { path: join(tree, p), followSymlinks });
    } finally {
      strace.kill('SIGINT');
      await new Promise((r) => strace.once('exit', r));
    }
    const traced = readFileSync(log, 'utf8').split('\n');
    if (process.env.KEEP_STRACE) writeFileSync(process.env.KEEP_STRACE, traced.join('\n'));
    const isOpen = (l: string) => /\bopen(at2?)?\(|\bcreat\(/.test(l);
    // The agent reads by descriptor (beneath.ts): a name is opened in its directory's
    // descriptor, by openat(N, "NAME") through the native module (fsat.ts) in a walk, as
    // /proc/self/fd/N/NAME by Stat; a directory is read by getdents64 on openat(N, "."), its
    // own descriptor reopened for reading (dents-reading.ts). The one open for reading that is
    // not of a ".": a directory that may be read but not searched (r--) refuses the lookup of
    // its ".", and is reopened through /proc/self/fd/N of its descriptor, already confined and
    // known to be a directory (fsat.c openDirRead), no name looked up: the describe below
    // walks one as a user the mode applies to (this agent runs as root, which searches any).
    const agentPid = String(agent.child.pid);
    const own = traced.filter((l) => isOpen(l) && !findPids(traced).has(l.split(' ')[0]));
    const nameInFd = (l: string) => /"\/proc\/self\/fd\/\d+\/[^"]+"/.test(l) || /openat\(\d+, "[^"/]+"/.test(l);
    const byFd = own.filter((l) => nameInFd(l) || /"\/proc\/self\/fd\/\d+"/.test(l));
    // The check sees the walks: the tree's directories were opened (as directories), by openat.
    assert.ok(
      byFd.some((l) => /openat\(\d+, "deeper"/.test(l)),
      `strace saw the walk (agent ${agentPid}):\n${own.slice(-50).join('\n')}`,
    );
    assert.deepEqual(
      own.filter((l) => l.includes(`"${tree}`)),
      [],
      'no path below the tree is opened by its string (the kernel would follow a symlink swapped into it)',
    );
    const notDirs = byFd.filter((l) => !l.includes('O_DIRECTORY') && !l.includes('O_PATH'));
    assert.deepEqual(
      notDirs,
      [],
      'every open below the tree is of a directory, or O_PATH (no I/O: a FIFO or device is not opened)',
    );
    const followsName = byFd.filter((l) => nameInFd(l) && !l.includes('O_NOFOLLOW'));
    assert.deepEqual(followsName, [], 'every name is opened without following a symlink');
    const forReading = byFd.filter((l) => !l.includes('O_PATH'));
    assert.ok(
      forReading.some((l) => /openat\(\d+, "\.", O_RDONLY\|.*O_DIRECTORY/.test(l)),
      `directories read from their descriptors' ".":\n${byFd.slice(-30).join('\n')}`,
    );
    assert.deepEqual(
      forReading.filter((l) => !readsDirByFd(l)),
      [],
      'the only opens for reading are of a directory descriptor\'s "." or its /proc/self/fd/N (none by a name)',
    );
    // Entries are stat'ed by fstatat on their directory's descriptor (fsat.ts), never
    // by a path string below the tree; the one name lookup the kernel does is in that directory.
    const isStat = (l: string) => /\b(stat|lstat|newfstatat|statx)\(/.test(l);
    const ownStats = traced.filter((l) => isStat(l) && !findPids(traced).has(l.split(' ')[0]));
    assert.deepEqual(
      ownStats.filter((l) => l.includes(`"${tree}/`)),
      [],
      "no entry below the tree is stat'ed by its path string",
    );
    const atDir = ownStats.filter((l) => /(newfstatat|statx)\(\d+, "[^/"]+", .*AT_SYMLINK_NOFOLLOW/.test(l));
    for (const name of ['a.txt', 'fifo', 'null', 'sock', 'b.bin', 'c'])
      assert.ok(
        atDir.some((l) => l.includes(`"${name}"`)),
        `${name} stat'ed by fstatat in its directory:\n${ownStats.slice(-30).join('\n')}`,
      );
    // The ranked walk ran GNU find (find-route.ts), which opens directories relative to
    // the descriptor of their parent: each of its opens of a path that is not a system
    // file outside the tree (its libraries, the zone file) is of a directory too.
    const pidOf = (l: string) => l.split(' ')[0];
    const finds = findPids(traced);
    assert.ok(finds.size > 0, `strace saw find run:\n${traced.filter((l) => l.includes('execve')).join('\n')}`);
    const findOpens = traced.filter((l) => finds.has(pidOf(l)) && /\bopen(at2?)?\(|\bcreat\(/.test(l));
    const inTree = findOpens.filter((l) => {
      const path = /"([^"]*)"/.exec(l)?.[1] ?? '';
      // "." is find saving the directory it started in (the agent's working directory).
      return (!path.startsWith('/') && path !== '.') || path.startsWith(tree) || path.startsWith('/proc/self/fd/');
    });
    // find starts at the descriptor it inherited (find-source.ts), not at the tree's path.
    assert.ok(
      inTree.some((l) => l.includes('"/proc/self/fd/3"')),
      `find started at its inherited descriptor:\n${findOpens.join('\n')}`,
    );
    assert.deepEqual(
      inTree.filter((l) => l.includes(`"${tree}`)),
      [],
      'find opens no path below the tree by its string',
    );
    assert.deepEqual(
      inTree.filter((l) => /openat\(\d+, "[^/"]/.test(l) && !l.includes('O_NOFOLLOW')),
      [],
      'find opens each directory in its parent without following a symlink',
    );
    assert.ok(
      inTree.some((l) => l.includes('"deeper"')),
      `find's opens:\n${findOpens.join('\n')}`,
    );
    assert.deepEqual(
      inTree.filter((l) => !l.includes('O_DIRECTORY')),
      [],
      'every open of find in the tree is of a directory',
    );
  });

  it('lists pseudo file systems it crosses into as PRUNED, walks tmpfs, and lists them when asked by path', async () => {
    const { rows } = await walkAll(client, { path: pseudo, maxDepth: 3 }, undefined, CALL_MS);
    assert.deepEqual(rowLines(rows), [
      'plain file',
      'proc dir',
      'proc [PRUNED]',
      'sys dir',
      'sys [PRUNED]',
      'tmp dir',
      'tmp/data file',
    ]);
    const pruned = rows.find((r) => r.kind === 'entry' && r.entry.error?.code === 'PRUNED');
    assert.match(pruned?.kind === 'entry' ? String(pruned.entry.error?.detail) : '', /^proc: a pseudo file system/);
    // Directory sizes stop at the pseudo file systems too (du would otherwise read all of /proc).
    await walkAll(client, { path: pseudo, maxDepth: 2, dirSizes: true }, undefined, CALL_MS);
    // Asked for by path, a pseudo file system is listed.
    const proc = rowLines(
      (await walkAll(client, { path: join(pseudo, 'proc'), maxDepth: 1 }, undefined, CALL_MS)).rows,
    );
    assert.ok(proc.includes('self symlink') && proc.includes('1 dir'), proc.slice(0, 20).join('\n'));
  });

  it('one_file_system lists another file system mount point but does not enter it', async () => {
    const req = { path: pseudo, maxDepth: 3, oneFileSystem: true };
    const { rows } = await walkAll(client, req, undefined, CALL_MS);
    // Not entered at all, pseudo or not: no PRUNED row, no tmp/data.
    assert.deepEqual(rowLines(rows), ['plain file', 'proc dir', 'sys dir', 'tmp dir']);
  });

  it('the SSH backend (GNU find) prunes the same pseudo file systems and honours one_file_system', async () => {
    const backend = createSshBackend(sshTarget(sshd), { logger: pino({ level: 'silent' }) });
    const signal = new AbortController().signal;
    const req = (over: Partial<WalkRequest>): WalkRequest => ({ ...WALK_DEFAULTS, path: pseudo, maxDepth: 3, ...over });
    try {
      for (const over of [
        {},
        { oneFileSystem: true },
        { shape: 'ranked' as const, order: 'size' as const, topN: 20 },
      ]) {
        const ssh = await drain(backend.walk(req(over), signal));
        const mine = await walkAll(client, { ...toWire(over), path: pseudo, maxDepth: 3 }, undefined, CALL_MS);
        assert.deepEqual(rowLines(ssh.rows), rowLines(mine.rows), JSON.stringify(over));
      }
      const prunedRow = (await drain(backend.walk(req({}), signal))).rows.find(
        (r) => r.kind === 'entry' && r.entry.error?.code === 'PRUNED',
      );
      assert.equal(
        prunedRow?.kind === 'entry' && prunedRow.entry.error?.detail,
        'proc: a pseudo file system, not walked (ask for its path to list it)',
      );
      const proc = rowLines((await drain(backend.walk(req({ path: join(pseudo, 'proc'), maxDepth: 1 }), signal))).rows);
      assert.ok(proc.includes('self symlink') && proc.includes('1 dir'), proc.slice(0, 20).join('\n'));
    } finally {
      backend.close();
    }
  });
});

/** The wire fields of the few request options the SSH comparison uses. */
function toWire(over: Partial<WalkRequest>): Parameters<typeof walkAll>[1] {
  return {
    ...(over.oneFileSystem ? { oneFileSystem: true } : {}),
    ...(over.shape === 'ranked' ? { shape: 'SHAPE_RANKED', order: 'ORDER_SIZE', topN: over.topN } : {}),
  };
}

describe('confinement of a real agent: a readable, unsearchable (r--) directory', () => {
  const asRoot = process.getuid?.() === 0;
  const work = mkdtempSync(join(tmpdir(), 'fleetls-confine-ronly-'));
  const tree = join(work, 'tree');
  let agent: AgentProcess;
  let client: AgentClient;

  before(async () => {
    // mkdtemp's 0700 would keep nobody out of the whole tree.
    chmodSync(work, 0o755);
    mkdirSync(join(tree, 'ronly', 'inner'), { recursive: true });
    writeFileSync(join(tree, 'ronly', 'f'), 'x');
    chmodSync(join(tree, 'ronly'), 0o444);
    // As root the agent may search any directory: nobody, to whom r-- applies (others' bits).
    agent = await startAgent({ allow: [work], ...(asRoot ? { uid: 65534, gid: 65534 } : {}) });
    client = agentClient(agent.address);
  });

  after(async () => {
    client?.close();
    await agent?.stop();
    chmodSync(join(tree, 'ronly'), 0o755);
    rmSync(work, { recursive: true, force: true });
  });

  it('lists its names through its own descriptor reopened, never a name opened for reading', async () => {
    const log = join(work, 'strace.log');
    const strace = await traceOpens(agent.child.pid as number, log);
    let lines: string[];
    try {
      lines = rowLines((await walkAll(client, { path: tree, maxDepth: 5 }, undefined, CALL_MS)).rows);
    } finally {
      strace.kill('SIGINT');
      await new Promise((r) => strace.once('exit', r));
    }
    // Listed: its names, each stat denied (the lookup in it is refused).
    assert.ok(
      lines.some((l) => l.startsWith('ronly/f')) && lines.some((l) => l.startsWith('ronly/inner')),
      lines.join('\n'),
    );
    const own = readFileSync(log, 'utf8')
      .split('\n')
      .filter((l) => /\bopen(at2?)?\(|\bcreat\(/.test(l) && !l.includes('O_PATH'));
    const below = own.filter((l) => /openat\(\d+, "/.test(l) || /"\/proc\/self\/fd\/\d+/.test(l));
    assert.ok(
      below.some((l) => /"\/proc\/self\/fd\/\d+", O_RDONLY\|.*O_DIRECTORY/.test(l)),
      `the r-- directory reopened through its descriptor's magic link:\n${below.join('\n')}`,
    );
    assert.deepEqual(
      below.filter((l) => !readsDirByFd(l)),
      [],
      'every open for reading is of a held directory descriptor ("." or /proc/self/fd/N), none by a name',
    );
  });
});
