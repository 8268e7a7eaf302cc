// The gRPC client of agent/http2/channel.ts against a bare node:http2 server on port 0, where
// each test scripts what the "agent" sends: framing, statuses, deadlines, cancel, reuse.
import assert from 'node:assert/strict';
import * as http2 from 'node:http2';
import { after, before, describe, it } from 'node:test';
import { status } from '@grpc/grpc-js';
import { createAgentChannel, GrpcError } from './channel.js';

type Handler = (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) => void;

function frame(msg: Buffer, compressed = 0): Buffer {
  const f = Buffer.alloc(5 + msg.length);
  f[0] = compressed;
  f.writeUInt32BE(msg.length, 1);
  msg.copy(f, 5);
  return f;
}

async function collect(gen: AsyncGenerator<Buffer>): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for await (const m of gen) out.push(Buffer.from(m));
  return out;
}

async function rejectsStatus(p: Promise<unknown>, code: status, re: RegExp): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof GrpcError, String(err));
    assert.equal(err.code, code, err.details);
    assert.match(err.details, re);
    return true;
  });
}

describe('agent channel', () => {
  let server: http2.Http2Server;
  let address: string;
  let handler: Handler = () => {};
  let sessions = 0;
  const closedStreams: number[] = [];

  before(async () => {
    server = http2.createServer();
    server.on('session', () => sessions++);
    server.on('stream', (stream, headers) => {
      stream.on('close', () => closedStreams.push(stream.rstCode));
      // A stream the client reset (or this server did) errors here; the test reads rstCode.
      stream.on('error', () => {});
      handler(stream, headers);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    address = `127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  const opts = (signal = new AbortController().signal, ms = 5000) => ({ timeoutMs: ms, signal });
  const ok = (stream: http2.ServerHttp2Stream, messages: Buffer[]) => {
    stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'x-agent': 'a' }, { waitForTrailers: true });
    stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
    // Two messages in one DATA frame and one split across two: the client reassembles them.
    const bytes = Buffer.concat(messages.map((m) => frame(m)));
    stream.write(bytes.subarray(0, 3));
    stream.end(bytes.subarray(3));
  };

  it('sends the request framed with its headers, reads every message, and reuses one session', async () => {
    let seen: http2.IncomingHttpHeaders | undefined;
    let body = Buffer.alloc(0);
    handler = (stream, headers) => {
      seen = headers;
      stream.on('data', (d: Buffer) => {
        body = Buffer.concat([body, d]);
      });
      stream.on('end', () => ok(stream, [Buffer.from('one'), Buffer.alloc(0), Buffer.from('three')]));
    };
    const ch = createAgentChannel({ address, authorization: 'Bearer t', connectTimeoutMs: 5000 });
    const before = sessions;
    try {
      let got: http2.IncomingHttpHeaders | undefined;
      const msgs = await collect(
        ch.serverStream('/p.S/M', Buffer.from('req'), { ...opts(), onHeaders: (h) => (got = h) }),
      );
      assert.deepEqual(msgs.map(String), ['one', '', 'three']);
      assert.equal(got?.['x-agent'], 'a');
      assert.deepEqual(body, frame(Buffer.from('req')));
      assert.equal(seen?.[':path'], '/p.S/M');
      assert.equal(seen?.['content-type'], 'application/grpc');
      assert.equal(seen?.te, 'trailers');
      assert.equal(seen?.authorization, 'Bearer t');
      assert.match(String(seen?.['grpc-timeout']), /^\d+m$/);
      assert.equal(String(await ch.unary('/p.S/M', Buffer.from('x'), opts())), 'three');
      assert.equal(sessions - before, 1);
    } finally {
      ch.close();
    }
  });

  it('reads the status of a trailers-only answer, of an HTTP error and of a reset', async () => {
    const ch = createAgentChannel({ address, connectTimeoutMs: 5000 });
    try {
      handler = (stream) =>
        stream.respond(
          {
            ':status': 200,
            'content-type': 'application/grpc',
            'grpc-status': '7',
            'grpc-message': 'denied%20%E2%80%94 here',
          },
          { endStream: true },
        );
      await rejectsStatus(ch.unary('/p.S/M', Buffer.alloc(0), opts()), status.PERMISSION_DENIED, /^denied — here$/);
      handler = (stream) => stream.respond({ ':status': 503 }, { endStream: true });
      await rejectsStatus(ch.unary('/p.S/M', Buffer.alloc(0), opts()), status.UNAVAILABLE, /HTTP status code 503/);
      handler = (stream) => stream.close(http2.constants.NGHTTP2_REFUSED_STREAM);
      await rejectsStatus(ch.unary('/p.S/M', Buffer.alloc(0), opts()), status.UNAVAILABLE, /NGHTTP2_REFUSED_STREAM/);
    } finally {
      ch.close();
    }
  });

  it('refuses a compressed or oversized message', async () => {
    const ch = createAgentChannel({ address, connectTimeoutMs: 5000 });
    try {
      handler = (stream) => {
        stream.respond({ ':status': 200, 'content-type': 'application/grpc' });
        stream.end(frame(Buffer.from('z'), 1));
      };
      await rejectsStatus(ch.unary('/p.S/M', Buffer.alloc(0), opts()), status.INTERNAL, /compressed/);
      handler = (stream) => {
        stream.respond({ ':status': 200, 'content-type': 'application/grpc' });
        const head = Buffer.alloc(5);
        head.writeUInt32BE(64 << 20, 1);
        stream.write(head);
      };
      await rejectsStatus(ch.unary('/p.S/M', Buffer.alloc(0), opts()), status.RESOURCE_EXHAUSTED, /larger than max/);
    } finally {
      ch.close();
    }
  });

  it('ends a call at its deadline and on abort, resetting the stream with CANCEL', async () => {
    handler = (stream) => stream.respond({ ':status': 200, 'content-type': 'application/grpc' });
    const ch = createAgentChannel({ address, connectTimeoutMs: 5000 });
    try {
      closedStreams.length = 0;
      await rejectsStatus(
        ch.unary('/p.S/M', Buffer.alloc(0), opts(undefined, 200)),
        status.DEADLINE_EXCEEDED,
        /Deadline exceeded/,
      );
      const ctrl = new AbortController();
      const p = ch.unary('/p.S/M', Buffer.alloc(0), opts(ctrl.signal));
      setTimeout(() => ctrl.abort(), 100);
      await rejectsStatus(p, status.CANCELLED, /Cancelled on client/);
      // The server sees both streams reset by the client.
      for (let i = 0; i < 50 && closedStreams.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(closedStreams, [http2.constants.NGHTTP2_CANCEL, http2.constants.NGHTTP2_CANCEL]);
    } finally {
      ch.close();
    }
  });

  it('sends a call the agent refused unseen once more, on a session that is open now', async () => {
    const ch = createAgentChannel({ address, connectTimeoutMs: 5000 });
    try {
      handler = (stream) => ok(stream, [Buffer.from('hi')]);
      assert.equal(String(await ch.unary('/p.S/M', Buffer.alloc(0), opts())), 'hi');
      const first = sessions;
      // The agent goes away refusing the stream it has not started (a burst meeting a closing session).
      let calls = 0;
      handler = (stream) => {
        if (calls++ > 0) return ok(stream, [Buffer.from('again')]);
        stream.session?.close();
        stream.close(http2.constants.NGHTTP2_REFUSED_STREAM);
      };
      assert.equal(String(await ch.unary('/p.S/M', Buffer.alloc(0), opts())), 'again');
      assert.equal(calls, 2);
      assert.equal(sessions - first, 1);
      // Refused on a session that stays open: the same session takes the second try.
      calls = 0;
      handler = (stream) => {
        if (calls++ > 0) return ok(stream, [Buffer.from('later')]);
        stream.close(http2.constants.NGHTTP2_REFUSED_STREAM);
      };
      assert.equal(String(await ch.unary('/p.S/M', Buffer.alloc(0), opts())), 'later');
      assert.equal(calls, 2);
      assert.equal(sessions - first, 1);
    } finally {
      ch.close();
    }
  });

  it('stops reading a call its consumer does not take, holding the agent back, and loses nothing', async () => {
    const MESSAGES = 128; // 4 MiB of 32 KiB messages, the agent's batch size
    let written = 0;
    let finished = false;
    handler = async (stream) => {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      for (let i = 0; i < MESSAGES; i++) {
        const msg = Buffer.alloc(32 * 1024, i);
        msg.writeUInt32BE(i);
        written++;
        // As the agent writes: wait for the window when the stream will not take more.
        if (!stream.write(frame(msg))) await new Promise((r) => stream.once('drain', r));
      }
      stream.end();
      finished = true;
    };
    const ch = createAgentChannel({ address, connectTimeoutMs: 5000 });
    try {
      const call = ch.serverStream('/p.S/M', Buffer.alloc(0), opts());
      const first = await call.next();
      assert.equal(first.done, false);
      // Time enough for loopback to carry all 4 MiB were nothing holding the agent back.
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(finished, false, 'the agent wrote everything while the consumer held');
      assert.ok(written <= 24, `${written} of ${MESSAGES} messages written while the consumer held`);
      const rest = await collect(call);
      assert.deepEqual(
        [first.value, ...rest].map((m) => m.readUInt32BE(0)),
        Array.from({ length: MESSAGES }, (_, i) => i),
      );
      assert.equal(finished, true);
    } finally {
      ch.close();
    }
  });

  it('opens a new session after the agent closed the last one', async () => {
    handler = (stream) => ok(stream, [Buffer.from('hi')]);
    const ch = createAgentChannel({ address, connectTimeoutMs: 5000 });
    try {
      const first = sessions;
      assert.equal(String(await ch.unary('/p.S/M', Buffer.alloc(0), opts())), 'hi');
      handler = (stream) => {
        ok(stream, [Buffer.from('bye')]);
        stream.session?.close();
      };
      assert.equal(String(await ch.unary('/p.S/M', Buffer.alloc(0), opts())), 'bye');
      handler = (stream) => ok(stream, [Buffer.from('again')]);
      assert.equal(String(await ch.unary('/p.S/M', Buffer.alloc(0), opts())), 'again');
      assert.equal(sessions - first, 2);
    } finally {
      ch.close();
    }
  });
});
