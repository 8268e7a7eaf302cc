// Allowed roots and request paths under --path-rootfs: host paths read under the mount of
// the host's /, with symlinks that leave the roots refused as without it.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { FleetError } from '@fleetls/core';
import { resolveAllowedPath, resolveRoots } from './policy.js';

describe('resolveAllowedPath with a rootfs', () => {
  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-rootfs-')));
  const host = path.join(tmp, 'host');
  fs.mkdirSync(path.join(host, 'var/log/app'), { recursive: true });
  fs.mkdirSync(path.join(host, 'etc'), { recursive: true });
  fs.symlinkSync('app', path.join(host, 'var/log/current'));
  fs.symlinkSync('../../etc', path.join(host, 'var/log/escape'));
  const roots = resolveRoots(['/var/log'], host);
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  const denied = (p: Promise<unknown>) =>
    assert.rejects(p, (err) => err instanceof FleetError && err.code === 'permission_denied');

  it('maps the request path and the roots under the rootfs', async () => {
    assert.deepEqual(roots.configured, [path.join(host, 'var/log')]);
    assert.equal(await resolveAllowedPath('/var/log', roots, true), path.join(host, 'var/log'));
    assert.equal(await resolveAllowedPath('/var/log/app/', roots, true), path.join(host, 'var/log/app'));
  });

  it('follows a symlink that stays inside the roots', async () => {
    assert.equal(await resolveAllowedPath('/var/log/current', roots, true), path.join(host, 'var/log/app'));
  });

  it('refuses host paths outside the roots, and symlinks leading out', async () => {
    await denied(resolveAllowedPath('/etc', roots, true));
    await denied(resolveAllowedPath('/var/log/../../etc', roots, true));
    await denied(resolveAllowedPath('/var/log/escape', roots, true));
    // The container's own /var/log is not the host's.
    await denied(resolveAllowedPath(path.join(host, 'var/log'), roots, true));
  });
});
