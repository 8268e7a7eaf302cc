// npm run package: the one-file programs, then the agent's .deb and .rpm, in dist/
// (or `--out DIR`).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { bundle } from './bundle.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { values } = parseArgs({
  options: {
    out: { type: 'string', default: path.join(repoRoot, 'dist') },
    // The tests build only what they check.
    only: { type: 'string', default: 'bundles,deb,rpm' },
  },
});
const only = new Set(values.only.split(','));
for (const part of only) {
  if (!['bundles', 'deb', 'rpm'].includes(part)) throw new Error(`--only: unknown part ${part} (bundles, deb, rpm)`);
}
const outDir = path.resolve(values.out);
const versionOf = (dir) => JSON.parse(fs.readFileSync(path.join(repoRoot, dir, 'package.json'), 'utf8')).version;
const versions = { agent: versionOf('packages/agent'), gateway: versionOf('packages/gateway') };

fs.mkdirSync(outDir, { recursive: true });
// Every part needs the bundles (the packages hold the agent's).
for (const file of await bundle({ repoRoot, outDir, versions })) console.log(`wrote ${file}`);
