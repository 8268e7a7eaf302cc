#!/usr/bin/env node
// Fails when the relative imports of a workspace's sources form a cycle (type-only imports
// included: they tie two modules' meanings together just as much), or when an import goes up
// a layer: a package importing one above it (LAYERS.packages), or a folder of a layered src/
// importing one above it (LAYERS[dir]). Run by `npm run lint`. Test files (*.test.ts) are
// held to no layer (a test may reach for any fake), only to no cycle.
// No dependencies: import specifiers are read with a pattern, which TypeScript sources
// formatted by biome satisfy (`from './x.js'` on the statement's last line).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const SPEC = /(?:^|\n)\s*(?:import|export)\s(?:[^'";]*?\sfrom\s)?'(\.{1,2}\/[^']+)'|import\('(\.{1,2}\/[^']+)'\)/g;
const PACKAGE_SPEC = /(?:^|\n)\s*(?:import|export)\s(?:[^'";]*?\sfrom\s)?'(@fleetls\/[^/']+)[^']*'|import\('(@fleetls\/[^/']+)[^']*'\)/g;

/**
 * The layers, highest first: a module may import its own layer or one below it, never one
 * above. `packages` ranks the workspaces by package name (a package not named, such as the
 * test kit, is held to none); a directory ranks the top-level entries of that src/ (a folder
 * or a root file), and an entry it does not name is refused, so a new folder takes a place.
 */
export const LAYERS = {
  packages: [['@fleetls/gateway'], ['@fleetls/hosts'], ['@fleetls/agent'], ['@fleetls/core', '@fleetls/runtime', '@fleetls/proto']],
  'packages/gateway/src': [
    ['testing'], // fakes and contract checks for tests: may import anything
    ['main.ts', 'index.ts'], // the entry points wire every layer
    ['faces'], // nothing below imports from here
    ['tools'],
    ['scans'],
    ['grants'], // who may call what: a call's grant, below the scans that carry it
    ['fleet'],
    ['inventory'],
    ['metrics', 'logger.ts', 'version.ts'], // leaves: they import only other packages
  ],
};

function sources(dir, out = []) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name === 'gen' || name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** The import graph of the .ts files under `dirs`: file → files it imports. */
export function importGraph(dirs) {
  const files = new Set(dirs.flatMap((d) => sources(d)));
  const graph = new Map();
  for (const f of files) {
    const deps = new Set();
    for (const m of readFileSync(f, 'utf8').matchAll(SPEC)) {
      const target = resolve(dirname(f), (m[1] ?? m[2]).replace(/\.js$/, '.ts'));
      if (files.has(target)) deps.add(target);
      else if (files.has(join(target, 'index.ts'))) deps.add(join(target, 'index.ts'));
    }
    graph.set(f, [...deps]);
  }
  return graph;
}

/** Strongly connected components of more than one file (or a file importing itself): Tarjan. */
export function cycles(graph) {
  let next = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) !== index.get(v)) return;
    const scc = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      scc.push(w);
    } while (w !== v);
    if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(scc.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** Every workspace's src/ (from the root package.json's workspaces). */
export function workspaceSources(root) {
  const { workspaces } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const dirs = workspaces.flatMap((w) =>
    w.endsWith('/*') ? readdirSync(join(root, w.slice(0, -2))).map((n) => join(root, w.slice(0, -2), n)) : [join(root, w)],
  );
  // A package's web/ (the dashboard, bundled for browsers) is source as much as its src/.
  return dirs.flatMap((d) => [join(d, 'src'), join(d, 'web')]).filter((d) => {
    try {
      return statSync(d).isDirectory();
    } catch {
      return false;
    }
  });
}

/** The workspace directory → its package name, for every workspace of `root`. */
function packageNames(root) {
  const names = new Map();
  for (const src of workspaceSources(root)) {
    const dir = dirname(src);
    try {
      names.set(dir, JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name);
    } catch {
      // a workspace without a package.json names no package
    }
  }
  return names;
}

const rankOf = (layers, name) => layers.findIndex((layer) => layer.includes(name));
const isTest = (file) => file.endsWith('.test.ts');

/**
 * Imports that go up a layer, as `{ from, to, why }` (paths relative to `root`): a package
 * importing a higher package, or a file of a layered src/ importing a higher folder; and, as
 * `{ from, why }` without `to`, a file in a folder its src/ does not rank. Test files are held
 * to none.
 */
export function upwardImports(root, graph, layers = LAYERS) {
  const found = [];
  const names = packageNames(root);
  const packageOf = (file) => {
    for (const [dir, name] of names) if (file.startsWith(`${dir}/`)) return name;
    return undefined;
  };
  for (const [file, deps] of graph) {
    if (isTest(file)) continue;
    const from = relative(root, file);
    const own = packageOf(file);
    const ownRank = rankOf(layers.packages, own);
    if (ownRank >= 0) {
      for (const m of readFileSync(file, 'utf8').matchAll(PACKAGE_SPEC)) {
        const to = m[1] ?? m[2];
        const rank = rankOf(layers.packages, to);
        if (to !== own && rank >= 0 && rank < ownRank) found.push({ from, to, why: `${own} may not import ${to}` });
      }
    }
    const dir = Object.keys(layers).find((d) => d !== 'packages' && from.startsWith(`${d}/`));
    if (!dir) continue;
    const entry = (f) => relative(join(root, dir), f).split('/')[0];
    const rank = rankOf(layers[dir], entry(file));
    if (rank < 0) {
      found.push({ from, why: `${entry(file)} has no layer in ${dir}: name it in LAYERS` });
      continue;
    }
    for (const dep of deps) {
      const to = relative(root, dep);
      const depRank = rankOf(layers[dir], entry(dep));
      if (to.startsWith(`${dir}/`) && depRank >= 0 && depRank < rank)
        found.push({ from, to, why: `${entry(file)} may not import ${entry(dep)}` });
    }
  }
  return found;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = resolve(process.argv[2] ?? join(dirname(new URL(import.meta.url).pathname), '..'));
  const graph = importGraph(workspaceSources(root));
  const found = cycles(graph);
  for (const c of found) console.error(`import cycle among: ${c.map((f) => relative(root, f)).join(', ')}`);
  const upward = upwardImports(root, graph);
  for (const u of upward)
    console.error(u.to ? `upward import: ${u.from} -> ${u.to} (${u.why})` : `no layer: ${u.from} (${u.why})`);
  if (found.length > 0)
    console.error(`${found.length} import cycle(s): move what both sides need into a module that imports neither.`);
  if (upward.length > 0)
    console.error(`${upward.length} layer problem(s): move what the lower layer needs down to it (scripts/check-cycles.mjs LAYERS).`);
  if (found.length > 0 || upward.length > 0) process.exit(1);
  console.log('no import cycles, no upward imports');
}
