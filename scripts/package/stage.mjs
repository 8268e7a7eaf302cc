// The agent's installed file tree, the same for the .deb and the .rpm: the bundle, a
// command on PATH, the unit and the default /etc/fleetls/agent.yaml. No node_modules.
import fs from 'node:fs';
import path from 'node:path';

export const UNIT = 'usr/lib/systemd/system/fleetls-agent.service';
export const CONFIG = 'etc/fleetls/agent.yaml';

/** Writes the tree under `root` (emptied first); returns the paths it holds, relative. */
export function stageAgent({ repoRoot, agentBundle, root, version }) {
  fs.rmSync(root, { recursive: true, force: true });
  const put = (rel, from, mode) => {
    const to = path.join(root, rel);
    fs.mkdirSync(path.dirname(to), { recursive: true, mode: 0o755 });
    fs.copyFileSync(from, to);
    fs.chmodSync(to, mode);
  };
  put('usr/lib/fleetls-agent/fleetls-agent.mjs', agentBundle, 0o755);
  fs.mkdirSync(path.join(root, 'usr/bin'), { recursive: true });
  fs.symlinkSync('../lib/fleetls-agent/fleetls-agent.mjs', path.join(root, 'usr/bin/fleetls-agent'));
  put(UNIT, path.join(repoRoot, 'deploy/systemd/fleetls-agent.service'), 0o644);
  put(CONFIG, path.join(repoRoot, 'deploy/packaging/agent.yaml'), 0o640);
  const doc = path.join(root, 'usr/share/doc/fleetls-agent/README');
  fs.mkdirSync(path.dirname(doc), { recursive: true });
  fs.writeFileSync(
    doc,
    `fleetls-agent ${version}: read-only directory listing agent for fleetls.\n` +
      'Configure /etc/fleetls/agent.yaml, then: systemctl restart fleetls-agent\n',
  );
  fs.chmodSync(doc, 0o644);
}
