// dist/fleetls-agent-<version>.noarch.rpm, built with rpmbuild from the staged tree and
// deploy/packaging/rpm/fleetls-agent.spec.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { stageAgent } from './stage.mjs';

export function buildRpm({ repoRoot, agentBundle, outDir, workDir, version }) {
  const stage = path.join(workDir, 'rpm-stage');
  stageAgent({ repoRoot, agentBundle, root: stage, version });
  const top = path.join(workDir, 'rpmbuild');
  fs.rmSync(top, { recursive: true, force: true });
  execFileSync(
    'rpmbuild',
    [
      '-bb',
      '--quiet',
      '--define',
      `_topdir ${top}`,
      '--define',
      `version ${version}`,
      '--define',
      `stage ${stage}`,
      // The file name the issue asks for, without the release.
      '--define',
      '_build_name_fmt %%{NAME}-%%{VERSION}.%%{ARCH}.rpm',
      // The bundle is plain JavaScript: nothing to strip, no debuginfo.
      '--define',
      '__os_install_post %{nil}',
      '--define',
      'debug_package %{nil}',
      path.join(repoRoot, 'deploy/packaging/rpm/fleetls-agent.spec'),
    ],
    { stdio: 'pipe' },
  );
  const built = path.join(top, 'RPMS', `fleetls-agent-${version}.noarch.rpm`);
  const rpm = path.join(outDir, path.basename(built));
  fs.copyFileSync(built, rpm);
  return rpm;
}
