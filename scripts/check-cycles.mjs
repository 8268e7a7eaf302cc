#!/usr/bin/env node
// Fails when the relative imports of a workspace's sources form a cycle (type-only imports
// included: they tie two modules' meanings together just as much). Run by `npm run lint`.
// No dependencies: import specifiers are read with a pattern, which TypeScript sources
// formatted by biome satisfy (`from './x.js'` on the statement's last line).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const SPEC = /(?:^|\n)\s*(?:import|export)\s(?:[^'";]*?\sfrom\s)?'(\.{1,2}\/[^']+)'|import\('(\.{1,2}\/[^']+)'\)/g;

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
  return dirs.map((d) => join(d, 'src')).filter((d) => {
    try {
      return statSync(d).isDirectory();
    } catch {
      return false;
    }
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = resolve(process.argv[2] ?? join(dirname(new URL(import.meta.url).pathname), '..'));
  const found = cycles(importGraph(workspaceSources(root)));
  for (const c of found) console.error(`import cycle among: ${c.map((f) => relative(root, f)).join(', ')}`);
  if (found.length > 0) {
    console.error(`${found.length} import cycle(s): move what both sides need into a module that imports neither.`);
    process.exit(1);
  }
  console.log('no import cycles');
}
