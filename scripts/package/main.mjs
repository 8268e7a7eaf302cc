// npm run package: the one-file programs, then the agent's .deb and .rpm, in dist/
// (or `--out DIR`).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { bundle } from './bundle.mjs';
import { buildDeb } from './deb.mjs';
import { buildRpm } from './rpm.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { values } = parseArgs({
  options: {
    out: { type: 'string', default: path.join(repoRoot, 'dist') },
    // The tests build only what they check.
    only: { type: 'string', default: 'bundles,deb,rpm' },
    // The packages' version (default: packages/agent's); the upgrade tests build a newer one.
    'package-version': { type: 'string' },
  },
});
const only = new Set(values.only.split(','));
for (const part of only) {
  if (!['bundles', 'deb', 'rpm'].includes(part)) throw new Error(`--only: unknown part ${part} (bundles, deb, rpm)`);
}
const packageVersion = values['package-version'];
if (packageVersion !== undefined && !/^[0-9][A-Za-z0-9.+~]*$/.test(packageVersion)) {
  throw new Error(`--package-version: expected digits first, then letters, digits, . + ~ (got ${packageVersion})`);
}
const outDir = path.resolve(values.out);
const versionOf = (dir) => JSON.parse(fs.readFileSync(path.join(repoRoot, dir, 'package.json'), 'utf8')).version;
const versions = { agent: versionOf('packages/agent'), gateway: versionOf('packages/gateway') };

fs.mkdirSync(outDir, { recursive: true });
// Every part needs the bundles (the packages hold the agent's).
const [agentBundle, gatewayBundle] = await bundle({ repoRoot, outDir, versions });
console.log(`wrote ${agentBundle}\nwrote ${gatewayBundle}`);
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-package-'));
try {
  const args = { repoRoot, agentBundle, outDir, workDir, version: packageVersion ?? versions.agent };
  if (only.has('deb')) console.log(`wrote ${buildDeb(args)}`);
  if (only.has('rpm')) console.log(`wrote ${buildRpm(args)}`);
} finally {
  fs.rmSync(workDir, { recursive: true, force: true });
}
