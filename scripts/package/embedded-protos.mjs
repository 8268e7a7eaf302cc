// The .proto files the programs load at run time (ours, gRPC health and reflection),
// compiled here into FileDescriptorProtos so the bundles read no .proto from disk.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const protoLoader = require('@grpc/proto-loader');

/** Root of a package installed in the workspace. */
function packageDir(name, repoRoot) {
  return path.dirname(require.resolve(`${name}/package.json`, { paths: [repoRoot] }));
}

function varint(buf, at) {
  let value = 0;
  let shift = 0;
  for (;;) {
    const b = buf[at++];
    value += (b & 0x7f) * 2 ** shift;
    shift += 7;
    if (b < 0x80) return [value, at];
  }
}

/** A FileDescriptorProto's name (field 1), read by hand: the only field needed here. */
function fileName(proto) {
  let at = 0;
  while (at < proto.length) {
    let key;
    [key, at] = varint(proto, at);
    const wire = key & 7;
    if (wire === 0) [, at] = varint(proto, at);
    else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else if (wire === 2) {
      let len;
      [len, at] = varint(proto, at);
      if (key >>> 3 === 1) return proto.subarray(at, at + len).toString('utf8');
      at += len;
    } else throw new Error(`FileDescriptorProto: wire type ${wire}`);
  }
  throw new Error('FileDescriptorProto without a name');
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

/** Loads `file` and adds it and its imports to `out`; returns their names, imports first as loaded. */
function compile(file, includeDirs, out) {
  return fileDescriptorsOf(protoLoader.loadSync(file, { includeDirs })).map((proto) => {
    const name = fileName(proto);
    out.files[name] = proto.toString('base64');
    return name;
  });
}

function protoFiles(dir, rel = '') {
  return fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((d) => {
    const child = path.posix.join(rel, d.name);
    if (d.isDirectory()) return protoFiles(dir, child);
    return d.name.endsWith('.proto') ? [child] : [];
  });
}

/**
 * Every FileDescriptorProto the programs load (`files`, by name, base64) and, by the path
 * tail each library asks loadSync for, which of them it needs (`needs`): every
 * proto/fleetls/**.proto, grpc-health-check's health/v1/health.proto and
 * @grpc/reflection's two reflection.proto.
 */
export function embeddedProtos(repoRoot) {
  const out = { files: {}, needs: {} };
  const ours = path.join(repoRoot, 'proto');
  for (const rel of protoFiles(path.join(ours, 'fleetls'), '')) {
    const key = `fleetls/${rel}`;
    out.needs[key] = compile(key, [ours], out);
  }
  const health = path.join(packageDir('grpc-health-check', repoRoot), 'proto');
  out.needs['health/v1/health.proto'] = compile('health/v1/health.proto', [health], out);
  const reflection = path.join(packageDir('@grpc/reflection', repoRoot), 'build', 'proto');
  for (const v of ['v1', 'v1alpha']) {
    const key = `grpc/reflection/${v}/reflection.proto`;
    out.needs[key] = compile(key, [reflection], out);
  }
  return out;
}
