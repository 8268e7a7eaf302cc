// The shard protocol's bodies: gzipped JSON that keeps Buffers (paths are bytes), cut into
// parts under the server's max_payload and put back together in order.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { type MsgHdrs, type NatsConnection, headers as natsHeaders } from '@nats-io/transport-node';
import { decodeBody, encodeBody } from '../gzip-json.js';
import { HDR_MORE, HDR_TYPE, Parts, publishParts } from './protocol.js';

/** A connection that keeps what is published, with the server's max_payload. */
function recorder(maxPayload: number) {
  const sent: { subject: string; data: Uint8Array; headers: MsgHdrs }[] = [];
  const nc = {
    info: { max_payload: maxPayload },
    publish(subject: string, data: Uint8Array, opts: { headers: MsgHdrs }) {
      sent.push({ subject, data: Uint8Array.from(data), headers: opts.headers });
    },
  } as unknown as NatsConnection;
  return { nc, sent };
}

describe('shard bodies', () => {
  it('round-trip values with Buffers (names as bytes, not UTF-8)', async () => {
    const value = { rows: [{ entry: { path: Buffer.from([0x66, 0xff, 0x00, 0x2f]), size: 3 } }], n: 1 };
    const back = await decodeBody<typeof value>(await encodeBody(value));
    assert.ok(Buffer.isBuffer(back.rows[0].entry.path));
    assert.deepEqual(back, value);
  });

  it('go in parts under max_payload and come back whole, in order', () => {
    const { nc, sent } = recorder(20 * 1024);
    const body = randomBytes(100_000);
    publishParts(nc, 'fleetls.gateway.x.r.y', body, { [HDR_TYPE]: 'results' });
    assert.ok(sent.length > 1, `${sent.length} parts`);
    for (const m of sent) {
      assert.ok(m.data.length <= 20 * 1024, `a part of ${m.data.length} bytes`);
      assert.equal(m.headers.get(HDR_TYPE), 'results');
    }
    assert.deepEqual(
      sent.map((m) => m.headers.get(HDR_MORE)),
      [...sent.slice(1).map(() => '1'), ''],
    );
    const parts = new Parts();
    const got = sent.map((m) => parts.add(m.data, m.headers));
    assert.deepEqual(
      got.slice(0, -1),
      sent.slice(1).map(() => undefined),
    );
    assert.deepEqual(Buffer.from(got.at(-1) as Uint8Array), body);
  });

  it('an empty body is one message (ack, alive)', () => {
    const { nc, sent } = recorder(1024 * 1024);
    publishParts(nc, 's', new Uint8Array(), { [HDR_TYPE]: 'ack' });
    assert.equal(sent.length, 1);
    const h = natsHeaders();
    assert.equal(new Parts().add(new Uint8Array(), h)?.length, 0);
  });
});
