// Self-contained executables (Node's single executable applications): dist/fleetls-agent
// and dist/fleetls, each a copy of the pinned Node runtime of scripts/package/runtime
// (a supported LTS, whatever node builds them) with the program injected by postject.
// Hosts need no Node. The walk worker travels as an SEA asset, started from a data: URL.
// The agent's native module, dist/fsat.node, goes beside them (the packages take it from
// there) and inside each as an asset: an executable copied alone loads its own copy
// (packages/agent/src/fs/fsat.ts).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { inBundle } from './bundle.mjs';
import { runtimeNode } from './runtime.mjs';

const require = createRequire(import.meta.url);
// The fuse every Node SEA build carries (nodejs.org/api/single-executable-applications.html).
const FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
const WORKER_ASSET = 'walk-worker.mjs';
const LAZY_ASSET = 'lazy.cjs';
const NATIVE_ASSET = 'fsat.node';

// The SEA main script is CommonJS (Node 24 runs no ES module there); code that reads
// import.meta.url gets the executable's own file URL (version and proto files are embedded).
const CJS_BANNER = "var __fleetlsMetaUrl = require('node:url').pathToFileURL(process.execPath).href;";
// Started from a data: URL, the worker resolves require() and import.meta.url from the
// executable's path (a URL relative to a data: URL is invalid).
const WORKER_BANNER = [
  "import { createRequire as __fleetlsRequire } from 'node:module';",
  "import { pathToFileURL as __fleetlsFileUrl } from 'node:url';",
  'const require = __fleetlsRequire(process.execPath);',
  'const __fleetlsMetaUrl = __fleetlsFileUrl(process.execPath).href;',
  'const __filename = process.execPath;',
  "const __dirname = __filename.slice(0, __filename.lastIndexOf('/'));",
].join('\n');
// Each walk's worker, from the asset: a data: URL is the one source a Worker takes that
// needs no file on disk.
const WORKER_FROM =
  "new URL('data:text/javascript;base64,' + Buffer.from(require('node:sea').getAsset(" +
  `${JSON.stringify(WORKER_ASSET)})).toString('base64'))`;

/**
 * The programs and the Node flags baked into each (execArgv, from exec-argv.json, which the
 * bench's walk section reads too, so it measures agents with the flags they ship with). The
 * agent's 1 MiB young generation: peak RSS over a full 300k-entry walk falls by about a
 * quarter at the same walk time (bench/results/footprint.md). One V8 platform thread (the
 * walks are on their own workers). V8's efficiency mode for the start only: the agent's
 * main.ts leaves it once it serves; an agent at rest holds 9 MiB less, none of the start's
 * optimized code (bench/results/footprint.why.md).
 */
const EXEC_ARGV = JSON.parse(fs.readFileSync(new URL('./exec-argv.json', import.meta.url), 'utf8'));
/**
 * The packages the agent imports only where configured or asked: yaml (a settings file that
 * is not blank), prom-client (--metrics), the NATS client (--connect), and proto-loader with
 * protobufjs (grpc-js requires it only for channelz and ORCA, which the agent does not turn
 * on). They travel as an SEA asset of their own, compiled at the first import of one of them,
 * not in the main script: V8 holds the main script's source in the heap and its pages are
 * read at every start, ~3.5 bytes of idle RSS per byte of script (bench/results/footprint.why.md).
 */
const AGENT_LAZY = ['yaml', 'prom-client', '@nats-io/*', '@grpc/proto-loader'];
const PROGRAMS = [
  {
    name: 'fleetls-agent',
    main: 'packages/agent/dist/main.js',
    execArgv: EXEC_ARGV['fleetls-agent'],
    lazy: AGENT_LAZY,
  },
  // The gateway's start is compiling its ~300 modules (the MCP SDK, zod): the blob carries
  // V8's code cache of the main script, so `fleetls serve` answers initialize ~0.77x sooner
  // (bench/results/startup.why.md). The agent's start is not its bound; its idle RSS is.
  { name: 'fleetls', main: 'packages/gateway/dist/main.js', execArgv: EXEC_ARGV.fleetls, codeCache: true },
];
// `fleetls-agent health-check`: the Ansible role's check, run on hosts that have no node.
const HEALTH_CHECK = 'deploy/ansible/roles/fleetls_agent/files/health-check.mjs';

function entryOf(repoRoot, p) {
  const main = `require(${JSON.stringify(path.join(repoRoot, p.main))});`;
  if (p.name !== 'fleetls-agent') return main;
  const check = `require(${JSON.stringify(path.join(repoRoot, HEALTH_CHECK))});`;
  return `if (process.argv[2] === 'health-check') ${check}\nelse ${main}\n`;
}

/** Whether an import specifier is one of `lazy`'s packages (a name, or a scope's `@scope/*`). */
function lazyMatch(lazy) {
  return (specifier) =>
    lazy.some((p) => (p.endsWith('/*') ? specifier.startsWith(p.slice(0, -1)) : specifier === p));
}

/**
 * In the main script, each of `lazy`'s packages becomes a stub taking its exports from the
 * lazy asset, which is compiled once, at the first such import. Its code's one package in
 * common with the main script, grpc-js, is the main script's own; builtins come from the
 * executable's require. Each package stubbed is added to `stubbed`, for the asset's entry.
 */
function lazyStubs(repoRoot, lazy, stubbed) {
  const isLazy = lazyMatch(lazy);
  return {
    name: 'fleetls-lazy-stubs',
    setup(build) {
      build.onResolve({ filter: /^[@a-z]/ }, (args) => {
        if (!isLazy(args.path)) return undefined;
        stubbed.add(args.path);
        return { path: args.path, namespace: 'fleetls-lazy' };
      });
      build.onResolve({ filter: /^fleetls-lazy-asset$/ }, () => ({ path: 'asset', namespace: 'fleetls-lazy-asset' }));
      build.onLoad({ filter: /.*/, namespace: 'fleetls-lazy' }, (args) => ({
        loader: 'js',
        contents: `module.exports = require('fleetls-lazy-asset')(${JSON.stringify(args.path)});`,
      }));
      build.onLoad({ filter: /.*/, namespace: 'fleetls-lazy-asset' }, () => ({
        loader: 'js',
        resolveDir: repoRoot,
        contents: `const shared = { '@grpc/grpc-js': require('@grpc/grpc-js') };
let parts;
module.exports = function lazyPackage(name) {
  if (parts === undefined) {
    const source = require('node:sea').getAsset(${JSON.stringify(LAZY_ASSET)}, 'utf8');
    const params = ['exports', 'require', 'module', '__filename', '__dirname', '__fleetlsMetaUrl'];
    const run = require('node:vm').compileFunction(source, params, { filename: ${JSON.stringify(LAZY_ASSET)} });
    const module = { exports: {} };
    const dir = process.execPath.slice(0, process.execPath.lastIndexOf('/'));
    run(module.exports, (id) => shared[id] ?? require(id), module, process.execPath, dir, __fleetlsMetaUrl);
    parts = module.exports;
  }
  return parts[name]();
};
`,
      }));
    },
  };
}

/** The lazy asset's source: each package the main script stubbed, its exports made at its first use. */
function lazyEntry(stubbed) {
  const parts = [...stubbed].sort().map((n) => `  ${JSON.stringify(n)}: () => require(${JSON.stringify(n)}),`);
  return `module.exports = {\n${parts.join('\n')}\n};\n`;
}

async function esbuildTo(options) {
  await esbuild.build({
    bundle: true,
    platform: 'node',
    target: 'node20',
    // ssh2's optional native parts: it falls back to pure JS when they fail to load.
    external: ['cpu-features', '*.node'],
    legalComments: 'none',
    logLevel: 'warning',
    // Whitespace and syntax only: names stay for stack traces and error classes, and the
    // source V8 keeps in the heap at rest shrinks.
    minifyWhitespace: true,
    minifySyntax: true,
    ...options,
  });
}

/** Writes outDir/<name> for each program, and outDir/fsat.node from `builtModule`; returns their paths. */
export async function buildExecutables({ repoRoot, outDir, workDir, versions, builtModule }) {
  const node = runtimeNode(repoRoot);
  const postject = require.resolve('postject/dist/cli.js');
  const worker = path.join(workDir, WORKER_ASSET);
  await esbuildTo({
    entryPoints: [path.join(repoRoot, 'packages/agent/dist/walk/worker.js')],
    outfile: worker,
    format: 'esm',
    banner: { js: WORKER_BANNER },
    define: { 'import.meta.url': '__fleetlsMetaUrl' },
    plugins: [inBundle({ repoRoot, versions })],
  });
  const out = [];
  for (const p of PROGRAMS) {
    const main = path.join(workDir, `${p.name}.cjs`);
    const assets = { [WORKER_ASSET]: worker, [NATIVE_ASSET]: builtModule };
    const stubbed = new Set();
    await esbuildTo({
      stdin: { contents: entryOf(repoRoot, p), resolveDir: repoRoot, sourcefile: `${p.name}-entry.cjs`, loader: 'js' },
      outfile: main,
      format: 'cjs',
      banner: { js: CJS_BANNER },
      define: { 'import.meta.url': '__fleetlsMetaUrl' },
      plugins: [
        ...(p.lazy ? [lazyStubs(repoRoot, p.lazy, stubbed)] : []),
        inBundle({ repoRoot, versions, workerFrom: WORKER_FROM }),
      ],
    });
    if (p.lazy) {
      assets[LAZY_ASSET] = path.join(workDir, `${p.name}-${LAZY_ASSET}`);
      await esbuildTo({
        stdin: { contents: lazyEntry(stubbed), resolveDir: repoRoot, sourcefile: 'lazy-entry.cjs', loader: 'js' },
        outfile: assets[LAZY_ASSET],
        format: 'cjs',
        define: { 'import.meta.url': '__fleetlsMetaUrl' },
        external: ['cpu-features', '*.node', '@grpc/grpc-js'],
        plugins: [inBundle({ repoRoot, versions })],
      });
    }
    const blob = path.join(workDir, `${p.name}.blob`);
    const config = path.join(workDir, `${p.name}.sea.json`);
    fs.writeFileSync(
      config,
      JSON.stringify({
        main,
        output: blob,
        disableExperimentalSEAWarning: true,
        useCodeCache: p.codeCache === true,
        execArgv: p.execArgv,
        assets,
      }),
    );
    // The blob's format belongs to the runtime that will run it: made by that same node.
    execFileSync(node, ['--experimental-sea-config', config], { stdio: 'pipe', cwd: workDir });
    const exe = path.join(outDir, p.name);
    fs.rmSync(exe, { force: true });
    // The runtime's symbols and DWARF are 18 of its 127 MB; a running node never reads them.
    // --strip-all keeps .dynsym, the exports fsat.node's napi_* calls bind to when loaded.
    execFileSync('strip', ['--strip-all', '-o', exe, node], { stdio: 'pipe' });
    fs.chmodSync(exe, 0o755);
    // Its own process: postject's LIEF prints a warning per ELF note it does not know.
    execFileSync(process.execPath, [postject, exe, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', FUSE], { stdio: 'pipe' });
    out.push(exe);
  }
  const nativeModule = path.join(outDir, path.basename(builtModule));
  // A new file, as each executable: a running program may have the old one mapped.
  fs.rmSync(nativeModule, { force: true });
  fs.copyFileSync(builtModule, nativeModule);
  // Loaded, never run: the packages install it 0644 too.
  fs.chmodSync(nativeModule, 0o644);
  out.push(nativeModule);
  return out;
}
