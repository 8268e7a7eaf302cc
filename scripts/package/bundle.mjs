// One-file programs: each of fleetls-agent and fleetls bundled by esbuild into one ES
// module that a plain `node` (>= 20) runs with no node_modules beside it.
import fs from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { embeddedProtos } from './embedded-protos.mjs';

// Bundled CommonJS code calls require() and reads __dirname; an ES module has neither.
const BANNER = [
  '#!/usr/bin/env node',
  "import { createRequire as __fleetlsRequire } from 'node:module';",
  "import { fileURLToPath as __fleetlsPath } from 'node:url';",
  'const require = __fleetlsRequire(import.meta.url);',
  'const __filename = __fleetlsPath(import.meta.url);',
  "const __dirname = __filename.slice(0, __filename.lastIndexOf('/'));",
].join('\n');

/**
 * Swaps, inside the bundle only, the few places that read files beside the code:
 * proto-loader's loadSync answers from embedded descriptor sets (and refuses a file
 * that was not embedded, naming it), each version module becomes a constant, the
 * walker's worker comes from `workerFrom` (an expression: its own bundle), and
 * the gateway's dashboard files are embedded (packages/gateway/src/faces/web/files.ts).
 */
export function inBundle({ repoRoot, versions, workerFrom }) {
  const protos = embeddedProtos(repoRoot);
  const realLoader = path.join(repoRoot, 'node_modules/@grpc/proto-loader/build/src/index.js');
  const replaceOnce = (file, text, from, to) => {
    const at = text.indexOf(from);
    if (at < 0 || text.indexOf(from, at + 1) >= 0) throw new Error(`${file}: expected exactly one ${from}`);
    return text.replace(from, to);
  };
  return {
    name: 'fleetls-in-bundle',
    setup(build) {
      build.onResolve({ filter: /^@grpc\/proto-loader$/ }, () => ({ path: 'embedded', namespace: 'proto-loader' }));
      build.onLoad({ filter: /.*/, namespace: 'proto-loader' }, () => ({
        resolveDir: repoRoot,
        loader: 'js',
        contents: `const real = require(${JSON.stringify(realLoader)});
const protos = ${JSON.stringify(protos)};
// A FileDescriptorSet (field 1: repeated FileDescriptorProto) of every file the request needs.
function descriptorSet(names) {
  const wanted = [];
  for (const name of [names].flat()) {
    const file = String(name);
    const key = Object.keys(protos.needs).find((k) => file === k || file.endsWith('/' + k));
    if (!key) throw new Error('fleetls bundle: ' + file + ' is not embedded (scripts/package/embedded-protos.mjs)');
    for (const dep of protos.needs[key]) if (!wanted.includes(dep)) wanted.push(dep);
  }
  const parts = [];
  for (const dep of wanted) {
    const proto = Buffer.from(protos.files[dep], 'base64');
    const len = [];
    for (let n = proto.length; ; n >>>= 7) {
      if (n <= 0x7f) { len.push(n); break; }
      len.push((n & 0x7f) | 0x80);
    }
    parts.push(Buffer.from([0x0a, ...len]), proto);
  }
  return Buffer.concat(parts);
}
module.exports = {
  ...real,
  loadSync: (names, options) => real.loadFileDescriptorSetFromBuffer(descriptorSet(names), options),
  load: async (names, options) => real.loadFileDescriptorSetFromBuffer(descriptorSet(names), options),
};`,
      }));
      build.onLoad({ filter: /packages\/(agent|gateway)\/dist\/version\.js$/ }, (args) => {
        const pkg = args.path.includes('/agent/') ? 'agent' : 'gateway';
        const name = pkg === 'agent' ? 'AGENT_VERSION' : 'GATEWAY_VERSION';
        return { loader: 'js', contents: `export const ${name} = ${JSON.stringify(versions[pkg])};\n` };
      });
      build.onLoad({ filter: /packages\/gateway\/dist\/faces\/web\/files\.js$/ }, () => {
        const dir = path.join(repoRoot, 'packages/gateway/dist/web-app');
        const files = Object.fromEntries(
          fs.readdirSync(dir).map((f) => [f, fs.readFileSync(path.join(dir, f)).toString('base64')]),
        );
        return {
          loader: 'js',
          contents: `const files = ${JSON.stringify(files)};
export const DASHBOARD_FILES = ['index.html', 'app.js', 'app.css', 'favicon.svg', 'du-app.html'];
export function readDashboardFile(name) {
  if (!(name in files)) throw new Error('fleetls bundle: dashboard file ' + name + ' is not embedded');
  return Buffer.from(files[name], 'base64');
}
`,
        };
      });
      // The worker: this bundle itself, or (`workerFrom`, an expression) another source.
      build.onLoad({ filter: /packages\/agent\/dist\/walk\/pool\.js$/ }, (args) => ({
        loader: 'js',
        contents: replaceOnce(
          args.path,
          fs.readFileSync(args.path, 'utf8'),
          'new Worker(WORKER_URL,',
          `new Worker(${workerFrom ?? 'new URL(import.meta.url)'},`,
        ),
      }));
    },
  };
}

// The walk worker's own bundle runs from a data: URL, which has no file to be beside: its
// require(), __filename and import.meta.url are the program's file (where fsat.node is
// looked for), given as __fleetlsMetaUrl by the line put before it (WORKER_FROM).
const WORKER_BANNER = [
  "import { createRequire as __fleetlsRequire } from 'node:module';",
  "import { fileURLToPath as __fleetlsPath } from 'node:url';",
  'const require = __fleetlsRequire(__fleetlsMetaUrl);',
  'const __filename = __fleetlsPath(__fleetlsMetaUrl);',
  "const __dirname = __filename.slice(0, __filename.lastIndexOf('/'));",
].join('\n');

/** The walk worker (packages/agent/dist/walk/worker.js) bundled alone, as text. */
async function workerSource({ repoRoot, versions }) {
  const built = await esbuild.build({
    entryPoints: [path.join(repoRoot, 'packages/agent/dist/walk/worker.js')],
    write: false,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    banner: { js: WORKER_BANNER },
    define: { 'import.meta.url': '__fleetlsMetaUrl' },
    external: ['cpu-features', '*.node'],
    plugins: [inBundle({ repoRoot, versions })],
    legalComments: 'none',
    logLevel: 'warning',
  });
  return built.outputFiles[0].text;
}

/** Writes dist/<name>.mjs for each program; returns their paths. */
export async function bundle({ repoRoot, outDir, versions }) {
  const agentDist = path.join(repoRoot, 'packages/agent/dist');
  const programs = [
    { name: 'fleetls-agent', main: path.join(agentDist, 'main.js') },
    { name: 'fleetls', main: path.join(repoRoot, 'packages/gateway/dist/main.js') },
  ];
  // Each walk thread runs the worker's bundle (~140 KB), not the whole program again (the
  // gateway's is 6.5 MB, the agent's 2.4 MB: parsed and held in every walk thread, ~100 ms
  // of a `fleetls ls` start; bench/results/startup.why.md), as the executables do (sea.mjs).
  const source = await workerSource({ repoRoot, versions });
  const workerFrom =
    "new URL('data:text/javascript;base64,' + Buffer.from('const __fleetlsMetaUrl = ' + " +
    `JSON.stringify(import.meta.url) + ';\\n' + ${JSON.stringify(source)}).toString('base64'))`;
  const out = [];
  for (const p of programs) {
    const outfile = path.join(outDir, `${p.name}.mjs`);
    const entry = `await import(${JSON.stringify(p.main)});\n`;
    await esbuild.build({
      stdin: { contents: entry, resolveDir: repoRoot, sourcefile: `${p.name}-entry.mjs`, loader: 'js' },
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      banner: { js: BANNER },
      // ssh2's optional native parts: it falls back to pure JS when they fail to load.
      external: ['cpu-features', '*.node'],
      plugins: [inBundle({ repoRoot, versions, workerFrom })],
      legalComments: 'none',
      logLevel: 'warning',
    });
    fs.chmodSync(outfile, 0o755);
    out.push(outfile);
  }
  return out;
}
