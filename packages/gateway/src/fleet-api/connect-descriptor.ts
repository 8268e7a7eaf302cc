// The Fleet service as @bufbuild/protobuf descriptors, for Connect: built at run time from
// the FileDescriptorProtos that proto-loader already made of fleet.proto (no second codegen).
// protobufjs writes type names relative to their scope ("Truncation"); protobuf-es wants
// them fully qualified (".fleetls.v1.Truncation"), so they are resolved here as protoc would;
// and json_name, which protobufjs leaves empty, gets protoc's lowerCamelCase.
import { create, createFileRegistry, type DescService, fromBinary, isFieldSet } from '@bufbuild/protobuf';
import {
  type DescriptorProto,
  FieldDescriptorProtoSchema,
  FileDescriptorProtoSchema,
  FileDescriptorSetSchema,
} from '@bufbuild/protobuf/wkt';
import { FLEET_SERVICE_NAME, loadFleetContract } from '@fleetls/proto';

type ProtoLoaderMethod = { requestType: { fileDescriptorProtos: Buffer[] } };

function qualify(file: ReturnType<typeof fromBinary<typeof FileDescriptorProtoSchema>>): void {
  const pkg = file.package ? `.${file.package}` : '';
  const known = new Set<string>();
  const collect = (msgs: DescriptorProto[], scope: string) => {
    for (const m of msgs) {
      const name = `${scope}.${m.name}`;
      known.add(name);
      for (const e of m.enumType) known.add(`${name}.${e.name}`);
      collect(m.nestedType, name);
    }
  };
  collect(file.messageType, pkg);
  for (const e of file.enumType) known.add(`${pkg}.${e.name}`);
  const resolve = (typeName: string, scope: string): string => {
    if (typeName.startsWith('.')) return typeName;
    for (let s = scope; ; s = s.slice(0, s.lastIndexOf('.'))) {
      const candidate = `${s}.${typeName}`;
      if (known.has(candidate)) return candidate;
      if (s === '') throw new Error(`fleet.proto: cannot resolve type ${typeName} from ${scope}`);
    }
  };
  const fix = (msgs: DescriptorProto[], scope: string) => {
    for (const m of msgs) {
      const name = `${scope}.${m.name}`;
      for (const f of m.field) {
        if (f.typeName) f.typeName = resolve(f.typeName, name);
        // protobufjs leaves json_name empty, which protobuf-es would take as the JSON name.
        if (!f.jsonName) f.jsonName = f.name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
        // protobufjs leaves proto3_optional unset, so protobuf-es would take a proto3 `optional`
        // field's synthetic oneof ("_depth") for a real one, and a typed client's { depth: 0 }
        // would be dropped: a oneof of one field named after it is what protoc marks so.
        if (isFieldSet(f, FieldDescriptorProtoSchema.field.oneofIndex)) {
          const members = m.field.filter(
            (g) => isFieldSet(g, FieldDescriptorProtoSchema.field.oneofIndex) && g.oneofIndex === f.oneofIndex,
          );
          if (members.length === 1 && m.oneofDecl[f.oneofIndex]?.name === `_${f.name}`) f.proto3Optional = true;
        }
      }
      fix(m.nestedType, name);
    }
  };
  fix(file.messageType, pkg);
  for (const svc of file.service) {
    for (const method of svc.method) {
      method.inputType = resolve(method.inputType, pkg);
      method.outputType = resolve(method.outputType, pkg);
    }
  }
}

let cached: DescService | undefined;

export function fleetServiceDescriptor(): DescService {
  if (cached) return cached;
  // The wire edge: proto-loader types a service as any definition; its methods carry their file descriptors.
  const def = loadFleetContract().packageDefinition[FLEET_SERVICE_NAME] as unknown as Record<string, ProtoLoaderMethod>;
  const protos = Object.values(def)[0].requestType.fileDescriptorProtos;
  const files = protos.map((b) => {
    const file = fromBinary(FileDescriptorProtoSchema, b);
    qualify(file);
    return file;
  });
  const registry = createFileRegistry(create(FileDescriptorSetSchema, { file: files }));
  const svc = registry.getService(FLEET_SERVICE_NAME);
  if (!svc) throw new Error(`fleet.proto: no service ${FLEET_SERVICE_NAME}`);
  cached = svc;
  return svc;
}
