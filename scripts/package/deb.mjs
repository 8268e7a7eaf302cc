// dist/fleetls-agent_<version>_all.deb, built with dpkg-deb from the staged tree.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CONFIG, stageAgent } from './stage.mjs';

export function buildDeb({ repoRoot, agentBundle, outDir, workDir, version }) {
  const root = path.join(workDir, 'deb');
  stageAgent({ repoRoot, agentBundle, root, version });
  const control = path.join(root, 'DEBIAN');
  fs.mkdirSync(control, { mode: 0o755 });
  const installedKiB = Math.ceil(fs.statSync(agentBundle).size / 1024) + 8;
  fs.writeFileSync(
    path.join(control, 'control'),
    [
      'Package: fleetls-agent',
      `Version: ${version}`,
      'Architecture: all',
      'Maintainer: fleetls maintainers <fleetls@localhost>',
      'Depends: nodejs (>= 20), passwd',
      'Section: admin',
      'Priority: optional',
      `Installed-Size: ${installedKiB}`,
      'Description: read-only directory listing agent for fleetls',
      ' fleetls-agent serves gRPC Walk and Stat over the directories it is allowed,',
      ' read-only, enforcing every limit while it walks. One JavaScript file run by the',
      " system's Node.js, under a hardened systemd unit as the unprivileged fleetls user.",
      '',
    ].join('\n'),
  );
  // dpkg keeps an edited conffile on upgrade and removes it only on purge.
  fs.writeFileSync(path.join(control, 'conffiles'), `/${CONFIG}\n`);
  for (const script of ['postinst', 'prerm', 'postrm']) {
    const to = path.join(control, script);
    fs.copyFileSync(path.join(repoRoot, 'deploy/packaging/deb', script), to);
    fs.chmodSync(to, 0o755);
  }
  const deb = path.join(outDir, `fleetls-agent_${version}_all.deb`);
  execFileSync('dpkg-deb', ['--root-owner-group', '-Zxz', '--build', root, deb], { stdio: 'pipe' });
  return deb;
}
