// dist/<package>-<version>.x86_64.rpm, built with rpmbuild from the staged tree and
// deploy/packaging/rpm/package.spec.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fillTemplate, stagePackage } from './stage.mjs';

export function buildRpm({ repoRoot, spec, executable, nativeModule, outDir, workDir, version, docs }) {
  const stage = path.join(workDir, `rpm-stage-${spec.name}`);
  stagePackage({ repoRoot, spec, executable, nativeModule, root: stage, version, docs, format: 'rpm' });
  const top = path.join(workDir, `rpmbuild-${spec.name}`);
  fs.rmSync(top, { recursive: true, force: true });
  fs.mkdirSync(top, { recursive: true });
  const specFile = path.join(top, `${spec.name}.spec`);
  fs.writeFileSync(
    specFile,
    fillTemplate(fs.readFileSync(path.join(repoRoot, 'deploy/packaging/rpm/package.spec'), 'utf8'), spec),
  );
  execFileSync(
    'rpmbuild',
    [
      '-bb',
      '--quiet',
      '--target',
      'x86_64',
      '--define',
      `_topdir ${top}`,
      '--define',
      `version ${version}`,
      '--define',
      `stage ${stage}`,
      // The file name the issue asks for, without the release.
      '--define',
      '_build_name_fmt %%{NAME}-%%{VERSION}.%%{ARCH}.rpm',
      // The executable is stripped already and carries its program in an ELF note that
      // strip or debuginfo extraction must not touch.
      '--define',
      '__os_install_post %{nil}',
      '--define',
      'debug_package %{nil}',
      '--define',
      '_build_id_links none',
      // zstd, as the .deb (rpm reads it since 4.14: RHEL 8 and later).
      '--define',
      '_binary_payload w6T2.zstdio',
      specFile,
    ],
    { stdio: 'pipe' },
  );
  const built = path.join(top, 'RPMS', `${spec.name}-${version}.x86_64.rpm`);
  const rpm = path.join(outDir, path.basename(built));
  fs.copyFileSync(built, rpm);
  return rpm;
}
