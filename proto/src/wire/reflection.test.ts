import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import type * as grpc from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';
import { FILE_NAME, SYMBOLS } from '../gen/agent-reflection.js';
import { loadContract, SERVICE_NAME } from '../index.js';
import { answerReflection, decodeReflectionRequest, reflectionService } from './reflection.js';

// The reference: @grpc/reflection over proto-loader's descriptor of the contract, as the agent served it.
const reference = new Map<
  string,
  { method: grpc.MethodDefinition<unknown, unknown>; handler: grpc.UntypedHandleCall }
>();
new ReflectionService(loadContract().packageDefinition, { services: [SERVICE_NAME] }).addToServer({
  addService: (definition, implementation) => {
    for (const [name, method] of Object.entries(definition))
      reference.set(method.path, { method, handler: implementation[name] });
  },
});

/** @grpc/reflection's answer to one request's bytes, as the bytes it would send. */
function theirs(path: string, bytes: Buffer): Buffer {
  const { method, handler } = reference.get(path)!;
  const answers: Buffer[] = [];
  const stream = Object.assign(new EventEmitter(), {
    write: (m: unknown) => answers.push(method.responseSerialize(m)),
    end: () => {},
  });
  (handler as (s: unknown) => void)(stream);
  stream.emit('data', method.requestDeserialize(bytes));
  assert.equal(answers.length, 1);
  return answers[0];
}

const REQUESTS: object[] = [
  { listServices: '*' },
  { listServices: '', host: 'agent-1' },
  ...SYMBOLS.map((fileContainingSymbol) => ({ fileContainingSymbol })),
  { fileContainingSymbol: 'fleetls.v1.Fleet' },
  { fileContainingSymbol: 'fleetls.v1' },
  { fileContainingSymbol: '' },
  { fileByFilename: FILE_NAME },
  { fileByFilename: 'fleetls/v1/agent.proto' },
  { fileContainingExtension: { containingType: 'fleetls.v1.Entry', extensionNumber: 100 } },
  { fileContainingExtension: { containingType: '', extensionNumber: -3 } },
  { allExtensionNumbersOfType: 'fleetls.v1.Entry' },
  { host: 'nothing asked' },
];

describe('reflection', () => {
  for (const version of ['v1', 'v1alpha'] as const) {
    it(`answers ${version} requests as @grpc/reflection did over the contract`, () => {
      const ours = reflectionService(version).ServerReflectionInfo;
      const { method } = reference.get(ours.path)!;
      assert.ok(SYMBOLS.includes('fleetls.v1.Agent.Walk') && SYMBOLS.includes('fleetls.v1.WalkRequest.maxDepth'));
      for (const request of REQUESTS) {
        const bytes = method.requestSerialize(request);
        const mine = answerReflection(ours.requestDeserialize(bytes) as never);
        assert.deepEqual(
          method.responseDeserialize(mine),
          method.responseDeserialize(theirs(ours.path, bytes)),
          JSON.stringify(request),
        );
      }
    });
  }

  it("decodes requests as @grpc/reflection's loader did, or throws where it threw", () => {
    const { method } = reference.get(reflectionService('v1').ServerReflectionInfo.path)!;
    let seed = 39;
    const next = () => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return seed >>> 16;
    };
    for (let i = 0; i < 3000; i++) {
      const base = method.requestSerialize(REQUESTS[i % REQUESTS.length]) as Buffer;
      const bytes = Buffer.from(base);
      // A byte changed, or the message cut short.
      if (i % 2 === 0 && bytes.length > 0) bytes[next() % bytes.length] = next() & 0xff;
      const cut = i % 2 === 1 ? bytes.subarray(0, next() % (bytes.length + 1)) : bytes;
      const outcome = (decode: (b: Buffer) => unknown) => {
        try {
          const value = decode(cut) as Record<string, unknown>;
          // Theirs keeps a oneof member's default (bytes: Array, defaults: true) only for host.
          return { value: JSON.parse(JSON.stringify(value)) };
        } catch {
          return { threw: true };
        }
      };
      assert.deepEqual(
        outcome(decodeReflectionRequest),
        outcome((b) => method.requestDeserialize(b)),
        cut.toString('hex'),
      );
    }
  });
});
