// gRPC server reflection (grpc.reflection.v1 and v1alpha: the same messages) about the agent
// contract, by hand: what @grpc/reflection answered over proto-loader's descriptor of it, from
// constants generated at build time (gen/agent-reflection.ts), so that an agent asked by
// grpcurl does not load proto-loader and protobufjs for the rest of its life (+17 MiB of
// idle RSS after one reflection call, issue 39). Requests are read by protobufjs' rules
// (request-decoder.ts's Reader) into what @grpc/reflection's loader options made of them;
// reflection.test.ts holds the answers to @grpc/reflection's own.
import type * as grpc from '@grpc/grpc-js';
import { FILE_DESCRIPTOR, FILE_NAME, SERVICES, SYMBOLS } from '../gen/agent-reflection.js';
import { ProtoWriter } from './fast-encoder.js';
import { Reader, readMessage } from './request-decoder.js';

/** The request's one question, named as @grpc/reflection's loader names it (oneofs: true). */
type Question =
  | 'fileByFilename'
  | 'fileContainingSymbol'
  | 'fileContainingExtension'
  | 'allExtensionNumbersOfType'
  | 'listServices';

export interface ReflectionRequest {
  host: string;
  messageRequest?: Question;
  fileByFilename?: string;
  fileContainingSymbol?: string;
  fileContainingExtension?: { containingType: string; extensionNumber: number };
  allExtensionNumbersOfType?: string;
  listServices?: string;
}

/** ServerReflectionRequest's oneof, in declaration order (field numbers 3 to 7). */
const QUESTIONS: readonly Question[] = [
  'fileByFilename',
  'fileContainingSymbol',
  'fileContainingExtension',
  'allExtensionNumbersOfType',
  'listServices',
];

/** A ServerReflectionRequest's bytes → the request; throws where protobufjs threw. */
export function decodeReflectionRequest(bytes: Buffer): ReflectionRequest {
  const r = new Reader(bytes);
  const out: ReflectionRequest = { host: '' };
  const present = new Set<Question>();
  readMessage(r, undefined, 0, (tag) => {
    const field = tag >>> 3;
    if (field === 1) out.host = r.string();
    else if (field === 5) {
      const ext = { containingType: '', extensionNumber: 0 };
      readMessage(r, r.uint32(), 1, (inner) => {
        if (inner >>> 3 === 1) ext.containingType = r.string();
        else if (inner >>> 3 === 2) ext.extensionNumber = r.int32();
        else r.skipType(inner & 7, 1);
      });
      out.fileContainingExtension = ext;
      present.add('fileContainingExtension');
    } else if (field >= 3 && field <= 7) {
      const question = QUESTIONS[field - 3];
      (out as unknown as Record<string, string>)[question] = r.string();
      present.add(question);
    } else r.skipType(tag & 7, 0);
  });
  // toObject visits the oneof's members in declaration order: with more than one on the wire, the last names it.
  for (const q of QUESTIONS) if (present.has(q)) out.messageRequest = q;
  return out;
}

/** A string field written even when empty: in a oneof, its presence is the question. */
function presentString(w: ProtoWriter, field: number, text: string): void {
  const b = Buffer.from(text, 'utf8');
  if (b.length > 0) w.bytes(field, b);
  else {
    w.varint((field << 3) | 2);
    w.varint(0);
  }
}

/** The request again (ServerReflectionResponse.original_request), its unknown fields left out. */
function writeRequest(w: ProtoWriter, req: ReflectionRequest): void {
  w.string(1, req.host);
  for (const [i, question] of QUESTIONS.entries()) {
    const value = req[question];
    if (value === undefined) continue;
    if (typeof value === 'string') presentString(w, i + 3, value);
    else {
      const ext = new ProtoWriter(64);
      ext.string(1, value.containingType);
      ext.int(2, value.extensionNumber);
      w.message(i + 3, ext);
    }
  }
}

// Made at the first reflection call: an agent that is never asked holds neither.
let descriptor: Buffer | undefined;
let symbols: Set<string> | undefined;

function theFile(): Buffer {
  descriptor ??= Buffer.from(FILE_DESCRIPTOR, 'base64');
  return descriptor;
}
const NOT_FOUND = 5;
const UNIMPLEMENTED = 12;

/** The answer's one part: a file, the services, or an error (the contract has no extensions). */
type Answer = { file: Buffer } | { services: readonly string[] } | { errorCode: number; errorMessage: string };

/** What @grpc/reflection answered a request over the agent contract alone (no imports, no extensions). */
function answer(req: ReflectionRequest): Answer {
  switch (req.messageRequest) {
    case 'listServices':
      return { services: SERVICES };
    case 'fileContainingSymbol': {
      const symbol = req.fileContainingSymbol ?? '';
      symbols ??= new Set(SYMBOLS);
      return symbols.has(symbol)
        ? { file: theFile() }
        : { errorCode: NOT_FOUND, errorMessage: `Symbol not found: ${symbol}` };
    }
    case 'fileByFilename': {
      const name = req.fileByFilename ?? '';
      return name === FILE_NAME
        ? { file: theFile() }
        : { errorCode: NOT_FOUND, errorMessage: `Proto file not found: ${name}` };
    }
    case 'fileContainingExtension': {
      const ext = req.fileContainingExtension;
      return {
        errorCode: NOT_FOUND,
        errorMessage: `Extension not found for symbol ${ext?.containingType || ''} at field ${ext?.extensionNumber || -1}`,
      };
    }
    case 'allExtensionNumbersOfType':
      return {
        errorCode: NOT_FOUND,
        errorMessage: `Extensions not found for symbol ${req.allExtensionNumbersOfType ?? ''}`,
      };
    default:
      return { errorCode: UNIMPLEMENTED, errorMessage: `Unimplemented method for request: ${req.messageRequest}` };
  }
}

/** The ServerReflectionResponse to a request, as bytes. */
export function answerReflection(req: ReflectionRequest): Buffer {
  const a = answer(req);
  const size = 'file' in a ? a.file.length : 0;
  const w = new ProtoWriter(size + 256);
  w.string(1, req.host);
  const original = new ProtoWriter(256);
  writeRequest(original, req);
  w.message(2, original);
  const part = new ProtoWriter(size + 16);
  if ('file' in a) {
    part.bytes(1, a.file);
    w.message(4, part);
  } else if ('services' in a) {
    const service = new ProtoWriter(64);
    for (const name of a.services) {
      service.reset();
      service.string(1, name);
      part.message(1, service);
    }
    w.message(6, part);
  } else {
    part.uint(1, a.errorCode);
    part.string(2, a.errorMessage);
    w.message(7, part);
  }
  return Buffer.from(w.buf.subarray(0, w.pos));
}

const identity = (bytes: Buffer): Buffer => bytes;

/** The ServerReflectionInfo method of `version` (v1 or v1alpha): requests decoded, answers as bytes. */
export function reflectionService(version: 'v1' | 'v1alpha'): grpc.ServiceDefinition {
  return {
    ServerReflectionInfo: {
      path: `/grpc.reflection.${version}.ServerReflection/ServerReflectionInfo`,
      requestStream: true,
      responseStream: true,
      originalName: 'serverReflectionInfo',
      requestDeserialize: decodeReflectionRequest,
      responseSerialize: identity,
      requestSerialize: identity,
      responseDeserialize: identity,
    },
  };
}
