// The .proto files the programs load at run time (ours, gRPC health and reflection),
// compiled here into FileDescriptorSets so the bundles read no .proto from disk.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const protoLoader = require('@grpc/proto-loader');

/** Root of a package installed in the workspace. */
function packageDir(name) {
  return path.dirname(require.resolve(`${name}/package.json`, { paths: [process.cwd()] }));
}

/** A FileDescriptorSet (field 1: repeated FileDescriptorProto), encoded by hand: it is one field. */
function descriptorSet(files) {
  const parts = [];
  for (const file of files) {
    const len = [];
    let n = file.length;
    while (n > 0x7f) {
      len.push((n & 0x7f) | 0x80);
      n >>>= 7;
    }
    len.push(n);
    parts.push(Buffer.from([0x0a, ...len]), file);
  }
  return Buffer.concat(parts);
}

function fileDescriptorsOf(definition) {
  for (const value of Object.values(definition)) {
    if (value.fileDescriptorProtos) return value.fileDescriptorProtos;
    for (const method of Object.values(value)) {
      if (method?.requestType?.fileDescriptorProtos) return method.requestType.fileDescriptorProtos;
    }
  }
  throw new Error('no file descriptors in the loaded definition');
}

function compile(file, includeDirs) {
  return descriptorSet(fileDescriptorsOf(protoLoader.loadSync(file, { includeDirs })));
}

function protoFiles(dir, rel = '') {
  return fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((d) => {
    const child = path.posix.join(rel, d.name);
    if (d.isDirectory()) return protoFiles(dir, child);
    return d.name.endsWith('.proto') ? [child] : [];
  });
}

/**
 * Descriptor sets keyed by the path tail each library asks loadSync for: every
 * proto/fleetls/**.proto, grpc-health-check's health/v1/health.proto and
 * @grpc/reflection's two reflection.proto.
 */
export function embeddedProtos(repoRoot) {
  const sets = {};
  const ours = path.join(repoRoot, 'proto');
  for (const rel of protoFiles(path.join(ours, 'fleetls'), '')) {
    const key = `fleetls/${rel}`;
    sets[key] = compile(key, [ours]);
  }
  const health = path.join(packageDir('grpc-health-check'), 'proto');
  sets['health/v1/health.proto'] = compile('health/v1/health.proto', [health]);
  const reflection = path.join(packageDir('@grpc/reflection'), 'build', 'proto');
  for (const v of ['v1', 'v1alpha']) {
    const key = `grpc/reflection/${v}/reflection.proto`;
    sets[key] = compile(key, [reflection]);
  }
  return sets;
}
