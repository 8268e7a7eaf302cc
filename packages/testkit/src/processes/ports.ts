// Loopback ports for tests: real servers listen on port 0 (grpc-js's test/common.ts); these
// are for what must be named before it listens, or must refuse.
import { createServer } from 'node:net';

/** A loopback port nothing listens on now (bound, then closed): to listen on next, or to be refused. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}
