// The unit drop-in for an agent on a Unix socket (deploy/systemd/fleetls-agent.service.d/
// unix-socket.conf), applied to the packaged unit as systemd applies it: its
// `systemd-analyze security` score, beside the TCP unit's, and the network it leaves.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { REPO_ROOT } from '../helpers/agent-process.js';

const UNIT = join(REPO_ROOT, 'deploy/systemd/fleetls-agent.service');
const DROP_IN = join(REPO_ROOT, 'deploy/systemd/fleetls-agent.service.d/unix-socket.conf');

/** `systemd-analyze security --offline=true` of the unit in `root`: the overall score and the check lines. */
function analyze(root: string): { score: number; lines: string[] } {
  const out = execFileSync(
    'systemd-analyze',
    ['security', '--offline=true', `--root=${root}`, '--no-pager', 'fleetls-agent.service'],
    { encoding: 'utf8' },
  );
  const m = /Overall exposure level for fleetls-agent\.service: (\d+\.\d)/.exec(out);
  assert.ok(m, out);
  return { score: Number(m[1]), lines: out.split('\n') };
}

describe('systemd drop-in for the agent on a Unix socket', () => {
  const root = mkdtempSync(join(tmpdir(), 'fleetls-unit-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('scores below the TCP unit, with no network and no address family but AF_UNIX', () => {
    const dir = join(root, 'etc/systemd/system');
    mkdirSync(join(dir, 'fleetls-agent.service.d'), { recursive: true });
    copyFileSync(UNIT, join(dir, 'fleetls-agent.service'));
    const tcp = analyze(root);
    copyFileSync(DROP_IN, join(dir, 'fleetls-agent.service.d/unix-socket.conf'));
    const unix = analyze(root);
    assert.ok(unix.score <= 1.0, `drop-in score ${unix.score}`);
    assert.ok(unix.score < tcp.score, `drop-in ${unix.score} vs TCP unit ${tcp.score}`);
    const passed = (what: RegExp) => unix.lines.some((l) => l.startsWith('✓') && what.test(l));
    assert.ok(passed(/^✓ PrivateNetwork=/), 'PrivateNetwork=yes');
    assert.ok(passed(/^✓ IPAddressDeny=/), 'IPAddressDeny=any');
    assert.ok(passed(/RestrictAddressFamilies=~AF_\(INET\|INET6\)/), 'no AF_INET/AF_INET6');
    assert.ok(passed(/RestrictAddressFamilies=~AF_NETLINK/), 'no AF_NETLINK');
    assert.ok(!passed(/RestrictAddressFamilies=~AF_UNIX/), 'AF_UNIX stays allowed');
  });
});
