import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { statRoute } from './fsat.js';
import { mountOf, parseMountinfo, readMounts, under } from './mounts.js';

const MOUNTINFO = [
  '22 1 0:21 / / rw,relatime - overlay overlay rw,lowerdir=/a',
  '23 22 0:22 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw',
  '24 22 0:23 / /sys ro,nosuid - sysfs sysfs ro',
  '25 24 0:24 / /sys/fs/cgroup ro,nosuid shared:9 master:3 - cgroup2 cgroup2 rw',
  '26 22 0:39 / /srv/my\\040share rw,relatime - fuse.sshfs user@host: rw,user_id=0',
  'garbage line',
  '',
].join('\n');

describe('mountinfo', () => {
  it('reads mount points (octal escapes decoded) and file-system types, optional fields or not', () => {
    assert.deepEqual(parseMountinfo(MOUNTINFO), [
      { point: '/', fsType: 'overlay' },
      { point: '/proc', fsType: 'proc' },
      { point: '/sys', fsType: 'sysfs' },
      { point: '/sys/fs/cgroup', fsType: 'cgroup2' },
      { point: '/srv/my share', fsType: 'fuse.sshfs' },
    ]);
  });

  it('finds the mount a path is on: the longest mount point above it, by whole components', () => {
    const mounts = parseMountinfo(MOUNTINFO);
    assert.equal(mountOf(mounts, '/sys/fs/cgroup/cpu')?.fsType, 'cgroup2');
    assert.equal(mountOf(mounts, '/sys/kernel')?.fsType, 'sysfs');
    assert.equal(mountOf(mounts, '/system')?.fsType, 'overlay');
    assert.equal(mountOf(mounts, '/srv/my share')?.fsType, 'fuse.sshfs');
    assert.ok(under('/', '/x') && under('/a', '/a') && under('/a', '/a/b') && !under('/a', '/ab'));
  });
});

describe('readMounts', () => {
  // Needs root (mount), as CI runs. The main thread with the native module reads the table
  // only when poll(2) says it changed: a mount or unmount must still be seen at once.
  it('sees a mount and its unmount made between two calls', (t) => {
    assert.match(statRoute(), /^fstatat /, 'the native module is built (npm run build) and loaded');
    const point = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-mounts-'));
    t.after(() => fs.rmSync(point, { recursive: true, force: true }));
    const has = () => readMounts().some((m) => m.point === point && m.fsType === 'tmpfs');
    for (let i = 0; i < 3; i++) {
      assert.equal(has(), false, `round ${i}: not mounted yet`);
      execFileSync('mount', ['-t', 'tmpfs', 'tmpfs', point]);
      try {
        assert.equal(has(), true, `round ${i}: mounted`);
        assert.equal(has(), true, `round ${i}: still mounted, table not read again`);
      } finally {
        execFileSync('umount', [point]);
      }
      assert.equal(has(), false, `round ${i}: unmounted`);
    }
  });
});
