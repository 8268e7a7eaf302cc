// npm run package: in dist/ (or `--out DIR`), the one-file programs (for a plain node),
// the self-contained executables with the agent's native module (fsat.node) beside them,
// and the .deb and .rpm of the agent and the gateway.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { bundle } from './bundle.mjs';
import { loadPrograms, renderDocs } from './docs.mjs';
import { buildDeb } from './deb.mjs';
import { buildRpm } from './rpm.mjs';
import { MissingTool, requireTools } from './runtime.mjs';
import { buildExecutables } from './sea.mjs';
import { NATIVE_MODULE, PACKAGES, packageSpec } from './stage.mjs';

const PARTS = ['bundles', 'exe', 'deb', 'rpm'];
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A bad argument or a missing tool: one line, exit 2, no stack. */
class Usage extends Error {}

async function main() {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        out: { type: 'string', default: path.join(repoRoot, 'dist') },
        // The tests build only what they check.
        only: { type: 'string', default: PARTS.join(',') },
        // Which packages the .deb and .rpm parts build.
        packages: { type: 'string', default: Object.keys(PACKAGES).join(',') },
        // Executables already built (by --only exe): the packages take them, and the
        // fsat.node beside them, from there.
        executables: { type: 'string' },
        // The packages' version (default: each package's); the upgrade tests build a newer one.
        'package-version': { type: 'string' },
      },
    }));
  } catch (err) {
    throw new Usage(err.message);
  }
  const only = values.only.split(',');
  for (const part of only) if (!PARTS.includes(part)) throw new Usage(`--only: unknown part ${part} (${PARTS.join(', ')})`);
  let specs;
  try {
    specs = values.packages.split(',').map(packageSpec);
  } catch (err) {
    throw new Usage(`--packages: ${err.message}`);
  }
  const packageVersion = values['package-version'];
  if (packageVersion !== undefined && !/^[0-9][A-Za-z0-9.+~]*$/.test(packageVersion)) {
    throw new Usage(`--package-version: expected digits first, then letters, digits, . + ~ (got ${packageVersion})`);
  }
  const packaging = only.includes('deb') || only.includes('rpm');
  const buildsExe = only.includes('exe') || (packaging && values.executables === undefined);
  const exeDir = values.executables === undefined ? undefined : path.resolve(values.executables);
  try {
    requireTools([...(buildsExe ? ['exe'] : []), ...only.filter((p) => p === 'deb' || p === 'rpm')]);
  } catch (err) {
    if (err instanceof MissingTool) throw new Usage(err.message);
    throw err;
  }

  // Checked before anything is built: without it every entry is stat'ed the slow way.
  const builtModule = path.join(repoRoot, 'packages/agent/dist/fs', NATIVE_MODULE);
  if (buildsExe && !fs.existsSync(builtModule)) {
    throw new Usage(
      `no ${path.relative(repoRoot, builtModule)}: npm run build makes it (with a C compiler: apt-get install gcc libc6-dev)`,
    );
  }
  const outDir = path.resolve(values.out);
  const versionOf = (dir) => JSON.parse(fs.readFileSync(path.join(repoRoot, dir, 'package.json'), 'utf8')).version;
  const versions = { agent: versionOf('packages/agent'), gateway: versionOf('packages/gateway') };
  fs.mkdirSync(outDir, { recursive: true });
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-package-'));
  try {
    if (only.includes('bundles')) {
      for (const file of await bundle({ repoRoot, outDir, versions })) console.log(`wrote ${file}`);
    }
    if (buildsExe) {
      for (const file of await buildExecutables({ repoRoot, outDir, workDir, versions, builtModule })) {
        console.log(`wrote ${file}`);
      }
    }
    // The man pages and completions, from the built programs' declarations (what --help prints).
    const programs = packaging ? await loadPrograms(repoRoot, versions) : undefined;
    const date = new Date(Number(process.env.SOURCE_DATE_EPOCH ?? Date.now() / 1000) * 1000).toISOString().slice(0, 10);
    for (const spec of packaging ? specs : []) {
      const executable = path.join(exeDir ?? outDir, spec.exe);
      if (!fs.existsSync(executable)) throw new Usage(`--executables: no ${spec.exe} in ${exeDir}`);
      const nativeModule = path.join(exeDir ?? outDir, NATIVE_MODULE);
      if (!fs.existsSync(nativeModule)) {
        throw new Usage(`--executables: no ${NATIVE_MODULE} in ${exeDir ?? outDir} (--only exe writes it beside the executables)`);
      }
      const version = packageVersion ?? (spec.name === 'fleetls' ? versions.gateway : versions.agent);
      const docs = renderDocs({ ...programs[spec.name], version }, date);
      const args = { repoRoot, spec, executable, nativeModule, outDir, workDir, version, docs };
      if (only.includes('deb')) console.log(`wrote ${buildDeb(args)}`);
      if (only.includes('rpm')) console.log(`wrote ${buildRpm(args)}`);
    }
  } finally {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  if (!(err instanceof Usage)) throw err;
  process.stderr.write(`npm run package: ${err.message}\n`);
  process.exitCode = 2;
});
