// Builds native/fsat.c into dist/fs/fsat.node with the system C compiler and Node-API's headers
// (the node-api-headers package), no node-gyp: one C file, no dependency but libc, and
// Node-API's symbols are the running node's. Node-API is stable across Node 20, 22 and 24,
// so one build serves each of them and the packaged runtime. No compiler is an error that
// says what to install: an agent built without it would list every entry the slow way.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const headers = path.join(path.dirname(createRequire(import.meta.url).resolve('node-api-headers/package.json')), 'include');
const cc = process.env.CC || 'cc';
mkdirSync(path.join(pkg, 'dist'), { recursive: true });
const args = [
  '-O2',
  '-std=c11',
  '-D_GNU_SOURCE',
  '-Wall',
  '-Wextra',
  '-Werror',
  '-fPIC',
  '-shared',
  '-fvisibility=hidden',
  '-I',
  headers,
  '-o',
  path.join(pkg, 'dist/fs/fsat.node'),
  path.join(pkg, 'native/fsat.c'),
];
try {
  execFileSync(cc, args, { stdio: 'inherit' });
} catch (err) {
  if (err.code === 'ENOENT') {
    console.error(`build-native: no C compiler (${cc}); install one: apt-get install gcc libc6-dev`);
    process.exit(1);
  }
  throw err;
}
