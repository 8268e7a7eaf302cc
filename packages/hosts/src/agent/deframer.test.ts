import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { frame } from '@fleetls/runtime/grpc-frame';
import { Deframer } from './deframer.js';

/** Every message `chunks` make, pushed in order, as strings; a framing problem fails the test. */
function messages(chunks: Uint8Array[]): { got: string[]; mid: boolean } {
  const d = new Deframer();
  const got: string[] = [];
  for (const c of chunks) {
    const bad = d.push(c, (m) => got.push(m.toString()));
    assert.equal(bad, undefined);
  }
  return { got, mid: d.midMessage };
}

describe('Deframer', () => {
  it('reads an empty message that ends what it holds (a proto3 message of defaults only)', () => {
    assert.deepEqual(messages([frame(new Uint8Array(0))]), { got: [''], mid: false });
    const two = Buffer.concat([frame(Buffer.from('a')), frame(new Uint8Array(0))]);
    assert.deepEqual(messages([two]), { got: ['a', ''], mid: false });
    // Its prefix split across chunks.
    const empty = frame(new Uint8Array(0));
    assert.deepEqual(messages([empty.subarray(0, 2), empty.subarray(2)]), { got: [''], mid: false });
  });

  it('joins messages split anywhere and splits chunks holding several', () => {
    const all = Buffer.concat([frame(Buffer.from('first')), frame(Buffer.from('second one')), frame(Buffer.from('3'))]);
    for (let cut = 1; cut < all.length; cut++) {
      assert.deepEqual(messages([all.subarray(0, cut), all.subarray(cut)]), {
        got: ['first', 'second one', '3'],
        mid: false,
      });
    }
    const bytes = [...all].map((b) => Uint8Array.of(b));
    assert.deepEqual(messages(bytes), { got: ['first', 'second one', '3'], mid: false });
    assert.deepEqual(messages([all.subarray(0, all.length - 1)]), { got: ['first', 'second one'], mid: true });
  });
});
