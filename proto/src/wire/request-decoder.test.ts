import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadContract } from '../index.js';
import { decodeStatRequest, decodeWalkRequest } from './request-decoder.js';

// The reference: what proto-loader's deserializers (protobufjs) made of the same bytes.
const { Walk, Stat } = loadContract().proto.fleetls.v1.Agent.service;

/** A small seeded generator (xorshift32): the same cases on every run. */
function random(seed: number) {
  let x = seed >>> 0 || 1;
  const next = () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
  const int = (n: number) => next() % n;
  const pick = <T>(items: readonly T[]): T => items[int(items.length)];
  return { next, int, pick, chance: (p: number) => next() / 4294967296 < p };
}
type Random = ReturnType<typeof random>;

const U32 = [0, 1, 127, 128, 300, 16384, 2 ** 31 - 1, 2 ** 31, 4294967295];
const LONGS = [0, 1, -1, 127, 2 ** 31, 2 ** 32 + 5, -(2 ** 40), Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER];
const TEXT = ['', 'a', '/srv/data', 'naïve', '\u{1F600}', 'x'.repeat(200)];

/** A WalkRequest as a client writes it: any subset of fields, enum values known or not. */
function walkRequest(rnd: Random): Record<string, unknown> {
  const req: Record<string, unknown> = {};
  const maybe = (name: string, value: () => unknown) => {
    if (rnd.chance(0.5)) req[name] = value();
  };
  maybe('path', () => rnd.pick(TEXT));
  for (const n of ['maxDepth', 'maxItemsPerDir', 'maxEntries', 'topN', 'offset', 'deadlineMs'])
    maybe(n, () => rnd.pick(U32));
  for (const n of ['capRoot', 'excludeHidden', 'followSymlinks', 'oneFileSystem', 'dirSizes'])
    maybe(n, () => rnd.chance(0.5));
  maybe('order', () => rnd.pick([0, 1, 2, 9]));
  maybe('direction', () => rnd.pick([0, 1, 5]));
  maybe('shape', () => rnd.pick([0, 1, 3]));
  maybe('afterRow', () => rnd.pick([0, 1, 2, 6]));
  maybe('include', () => Array.from({ length: rnd.int(3) }, () => rnd.pick(TEXT)));
  maybe('exclude', () => Array.from({ length: rnd.int(3) }, () => rnd.pick(TEXT)));
  maybe('types', () => Array.from({ length: rnd.int(4) }, () => rnd.pick([0, 1, 2, 7, 8, 100])));
  maybe('after', () => Buffer.from(Array.from({ length: rnd.int(20) }, () => rnd.int(256))));
  maybe('filter', () => {
    const f: Record<string, unknown> = {};
    const id = () => (rnd.chance(0.5) ? { id: rnd.pick(U32) } : { name: rnd.pick(TEXT) });
    if (rnd.chance(0.5)) f.minSize = { bytes: Math.abs(rnd.pick(LONGS)) };
    if (rnd.chance(0.5)) f.maxSize = rnd.chance(0.2) ? {} : { bytes: Math.abs(rnd.pick(LONGS)) };
    if (rnd.chance(0.5)) f.modifiedAfter = { sec: rnd.pick(LONGS), nsec: rnd.pick(U32) };
    if (rnd.chance(0.5)) f.modifiedBefore = { sec: rnd.pick(LONGS) };
    if (rnd.chance(0.5)) f.owner = rnd.chance(0.2) ? {} : id();
    if (rnd.chance(0.5)) f.group = id();
    if (rnd.chance(0.5)) f.perm = { kind: rnd.pick([0, 1, 2, 4]), mode: rnd.pick(U32) };
    if (rnd.chance(0.5)) f.name = rnd.pick(TEXT);
    return f;
  });
  return req;
}

/** The outcome of a decoder on some bytes: its object, or that it threw. */
function outcome(decode: (b: Buffer) => unknown, bytes: Buffer): { value?: unknown; threw?: true } {
  try {
    return { value: decode(bytes) };
  } catch {
    return { threw: true };
  }
}

function sameAsProtobufjs(ours: (b: Buffer) => unknown, theirs: (b: Buffer) => unknown, bytes: Buffer): void {
  const want = outcome(theirs, bytes);
  const got = outcome(ours, bytes);
  assert.deepEqual(got, want, `bytes ${bytes.toString('hex')}`);
}

/** Bytes near a real message: cut, a byte changed, a tag or a varint spliced in. */
function mutated(rnd: Random, bytes: Buffer): Buffer {
  const b = Buffer.from(bytes);
  switch (rnd.int(4)) {
    case 0:
      return b.subarray(0, rnd.int(b.length + 1));
    case 1:
      if (b.length > 0) b[rnd.int(b.length)] = rnd.int(256);
      return b;
    case 2: {
      const at = rnd.int(b.length + 1);
      const splice = Buffer.from(Array.from({ length: 1 + rnd.int(11) }, () => rnd.pick([0x80, 0xff, 0x01, 0x7f, 0])));
      return Buffer.concat([b.subarray(0, at), splice, b.subarray(at)]);
    }
    default: {
      // A field of any number and any wire type, known or not, with a short body.
      const tag = (rnd.int(40) << 3) | rnd.int(8);
      const tagBytes = tag < 128 ? [tag] : [(tag & 0x7f) | 0x80, tag >> 7];
      const body = Array.from({ length: rnd.int(12) }, () => rnd.int(256));
      return Buffer.concat([b, Buffer.from([...tagBytes, ...body])]);
    }
  }
}

describe('request-decoder', () => {
  it('decodes every WalkRequest a client writes into what protobufjs made of it', () => {
    const rnd = random(39);
    for (let i = 0; i < 3000; i++) {
      const bytes = Walk.requestSerialize(walkRequest(rnd) as never);
      assert.deepEqual(decodeWalkRequest(bytes), Walk.requestDeserialize(bytes));
    }
  });

  it('reads a 64-bit bound and both IdMatch fields as protobufjs did', () => {
    const bytes = Walk.requestSerialize({
      filter: { minSize: { bytes: 2 ** 53 - 1 }, modifiedAfter: { sec: -5, nsec: 1 }, owner: { id: 0 } },
    } as never);
    const decoded = decodeWalkRequest(bytes);
    assert.deepEqual(decoded, Walk.requestDeserialize(bytes));
    assert.deepEqual(decoded.filter?.owner, { id: 0, by: 'id' });
    assert.equal(decoded.filter?.modifiedAfter?.sec, -5);
    // Both oneof members on the wire (id, then name): `by` names the later, both are kept.
    const both = Buffer.from([0xaa, 0x01, 0x07, 0x2a, 0x05, 0x08, 0x03, 0x12, 0x01, 0x78]);
    assert.deepEqual(decodeWalkRequest(both), Walk.requestDeserialize(both));
    assert.deepEqual(decodeWalkRequest(both).filter?.owner, { id: 3, name: 'x', by: 'name' });
  });

  it('answers bytes near a real request, and random bytes, as protobufjs did: the same object or a throw', () => {
    const rnd = random(2026);
    let threw = 0;
    for (let i = 0; i < 6000; i++) {
      const base = Walk.requestSerialize(walkRequest(rnd) as never);
      const bytes =
        i % 3 === 0 ? Buffer.from(Array.from({ length: rnd.int(64) }, () => rnd.int(256))) : mutated(rnd, base);
      sameAsProtobufjs(decodeWalkRequest, Walk.requestDeserialize, bytes);
      if (outcome(decodeWalkRequest, bytes).threw) threw++;
    }
    // Both kinds of outcome were compared, not only one.
    assert.ok(threw > 100 && threw < 5900, `threw ${threw} of 6000`);
  });

  it('decodes StatRequest as protobufjs did, for written and for random bytes', () => {
    const rnd = random(7);
    for (let i = 0; i < 2000; i++) {
      const written = Stat.requestSerialize({
        ...(rnd.chance(0.7) ? { path: rnd.pick(TEXT) } : {}),
        ...(rnd.chance(0.5) ? { followSymlinks: rnd.chance(0.5) } : {}),
      });
      assert.deepEqual(decodeStatRequest(written), Stat.requestDeserialize(written));
      sameAsProtobufjs(decodeStatRequest, Stat.requestDeserialize, mutated(rnd, written));
    }
  });
});
