// The installed file tree of each package, the same for the .deb and the .rpm: the
// self-contained executable on PATH, the agent's native module (fsat.node) in
// /usr/lib/<executable>/ where the executable looks for it (packages/agent/src/fsat.ts),
// its hardened unit and its default config under /etc/fleetls. No node_modules and no Node:
// the executable carries its own runtime.
import fs from 'node:fs';
import path from 'node:path';
import { docPaths } from './docs.mjs';

/**
 * The two packages. `user` runs the unit (each package its own, so removing one never
 * takes the other's); `purge` is what a purge removes besides the config (dpkg's own).
 */
export const PACKAGES = {
  'fleetls-agent': {
    exe: 'fleetls-agent',
    // fleetls-agent(8): a daemon an administrator runs.
    section: 8,
    unit: 'fleetls-agent.service',
    config: 'etc/fleetls/agent.yaml',
    configFrom: 'deploy/packaging/agent.yaml',
    user: 'fleetls',
    comment: 'fleetls agent',
    purge: '/etc/fleetls/tls /etc/fleetls/token /etc/fleetls/nats',
    summary: 'Read-only directory listing agent for fleetls (gRPC, mTLS)',
    description: [
      'fleetls-agent serves gRPC Walk and Stat over the directories it is allowed,',
      'read-only, enforcing every limit while it walks. One self-contained executable',
      '(its own Node.js runtime inside), under a hardened systemd unit as the',
      'unprivileged fleetls user.',
    ],
  },
  fleetls: {
    exe: 'fleetls',
    section: 1,
    unit: 'fleetls.service',
    config: 'etc/fleetls/gateway.yaml',
    configFrom: 'deploy/packaging/gateway.yaml',
    user: 'fleetls-gateway',
    comment: 'fleetls gateway',
    purge: '/etc/fleetls/gateway',
    summary: 'fleetls gateway: MCP server and CLI listing directories across a fleet',
    description: [
      'fleetls lists directories across a fleet of Linux hosts for AI assistants (MCP),',
      'operators (a CLI) and dashboards (gRPC), through fleetls-agent or SSH. One',
      'self-contained executable (its own Node.js runtime inside); fleetls.service runs',
      'serve --http with the inventory /etc/fleetls/gateway.yaml.',
    ],
  },
};

/**
 * The agent's Node-API module (packages/agent/native/fsat.c): entries stat'ed by fstatat(2)
 * instead of the slower /proc/self/fd route. Both executables load it (the gateway's
 * `localhost` is the agent embedded); `--only exe` puts it beside them, and the packages
 * take it from there, so each ships the module built with its executables.
 */
export const NATIVE_MODULE = 'fsat.node';

/** Package name → its PACKAGES entry, or an error naming the known ones. */
export function packageSpec(name) {
  const spec = PACKAGES[name];
  if (!spec) throw new Error(`unknown package ${name} (${Object.keys(PACKAGES).join(', ')})`);
  return { name, ...spec };
}

/** A maintainer script or spec of deploy/packaging with this package's names filled in. */
export function fillTemplate(text, spec) {
  const values = {
    PACKAGE: spec.name,
    UNIT: spec.unit,
    CONFIG: `/${spec.config}`,
    USER: spec.user,
    COMMENT: spec.comment,
    PURGE: spec.purge,
    SUMMARY: spec.summary,
    DESCRIPTION: spec.description.join('\n'),
    EXE: spec.exe,
    SECTION: String(spec.section),
  };
  return text.replace(/@([A-Z]+)@/g, (m, key) => {
    if (!(key in values)) throw new Error(`unknown placeholder ${m}`);
    return values[key];
  });
}

/**
 * Writes the tree of `spec` under `root` (emptied first); `nativeModule` is fsat.node; `docs`
 * its man page and completions (docs.mjs renderDocs), placed as `format` (deb, rpm) reads them.
 */
export function stagePackage({ repoRoot, spec, executable, nativeModule, root, version, docs, format = 'deb' }) {
  fs.rmSync(root, { recursive: true, force: true });
  const put = (rel, from, mode) => {
    const to = path.join(root, rel);
    fs.mkdirSync(path.dirname(to), { recursive: true, mode: 0o755 });
    fs.copyFileSync(from, to);
    fs.chmodSync(to, mode);
  };
  put(`usr/bin/${spec.exe}`, executable, 0o755);
  // <dirname(execPath)>/../lib/<basename(execPath)>/: the first place the executable looks.
  put(`usr/lib/${spec.exe}/${NATIVE_MODULE}`, nativeModule, 0o644);
  put(`usr/lib/systemd/system/${spec.unit}`, path.join(repoRoot, 'deploy/systemd', spec.unit), 0o644);
  put(spec.config, path.join(repoRoot, spec.configFrom), 0o640);
  const doc = path.join(root, `usr/share/doc/${spec.name}/README`);
  fs.mkdirSync(path.dirname(doc), { recursive: true });
  // What it installs, how to configure and start it (with systemd or without), where the docs are.
  const readme = fs.readFileSync(path.join(repoRoot, `deploy/packaging/doc/${spec.name}.README`), 'utf8');
  fs.writeFileSync(doc, fillTemplate(readme.replaceAll('@VERSION@', version), spec));
  fs.chmodSync(doc, 0o644);
  if (docs) {
    for (const [kind, rel] of Object.entries(docPaths(spec.exe, spec.section, format))) {
      const to = path.join(root, rel);
      fs.mkdirSync(path.dirname(to), { recursive: true, mode: 0o755 });
      fs.writeFileSync(to, docs[kind], { mode: 0o644 });
      fs.chmodSync(to, 0o644);
    }
  }
}
