// A process never waits on its log. A real `fleetls serve` (stdio, logging at debug) started
// by a real MCP client that never reads the server's stderr pipe keeps answering every call
// long after that pipe is full (a blocking write froze it for good after some 200 KB), and
// once its stderr is read again says how many log lines it had to drop. In front of a reader
// that comes back as the server exits, an orderly exit writes every buffered line: each
// call's audit line and the last line are there.
import assert from 'node:assert/strict';
import type { Stream } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '@fleetls/testkit';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { stdioClient } from '../helpers/gateway-process.js';
import { type McpFleetFixture, startMcpFleet } from '../helpers/mcp-fixture.js';

/**
 * Calls made while stderr is not read. Most name hosts that do not exist (refused at once,
 * with a 2.3 KB audit line: selector and path are logged up to 1 KiB each); one in
 * REAL_EVERY lists every host. 7 MB of log: more than the pipe and the gateway's buffer
 * (4 MiB) hold.
 */
const CALLS = 3000;
const REAL_EVERY = 50;
/** Calls made before a late reader: more log than the pipe holds, less than the gateway buffers. */
const EXIT_CALLS = 300;
const AT_ONCE = 10;

type LogLine = { msg?: string; audit?: string; tool?: string; dropped?: number };

// stderr a pipe that nothing reads until the test says so.
const serve = (inventory: string) =>
  stdioClient('log-never-blocks', {}, { args: ['--inventory', inventory, '--log-level', 'debug'], stderr: 'pipe' });

/** Reads the stream from now on; lines() parses what arrived. */
function reader(stream: Stream | null): { lines: () => LogLine[]; ended: Promise<void> } {
  let text = '';
  assert.ok(stream, 'stderr is a pipe');
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  const ended = new Promise<void>((resolve) => stream.once('end', () => resolve()));
  // Only whole lines: the reader may look while a line is still arriving (CI once parsed the
  // first 2,087 bytes of a 2.3 KB audit line).
  const lines = () =>
    text
      .slice(0, text.lastIndexOf('\n') + 1)
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as LogLine);
  return { lines, ended };
}

describe('the gateway never waits on its log', () => {
  let fleet: McpFleetFixture;
  let path = '';

  before(async () => {
    fleet = await startMcpFleet();
    path = `${fleet.data}/${Array.from({ length: 100 }, (_, i) => `no-such-directory-${i}`).join('/')}`;
  });
  after(async () => {
    await fleet?.close();
  });

  const callsOf = async (client: Client, n: number) => {
    const selector = Array.from({ length: 100 }, (_, i) => `no-such-host-${i}`).join(',');
    for (let i = 0; i < n; i += AT_ONCE) {
      const answers = await Promise.all(
        Array.from({ length: AT_ONCE }, (_, k) =>
          client.callTool(
            {
              name: 'list_files',
              arguments: { host: (i + k) % REAL_EVERY === 0 ? 'all' : selector, path, top_n: 5, type: 'file' },
            },
            undefined,
            // A frozen gateway fails the call here instead of hanging the file.
            { timeout: 30_000 },
          ),
        ),
      );
      for (const [k, a] of answers.entries()) {
        if ((i + k) % REAL_EVERY === 0) {
          assert.ok(!a.isError, JSON.stringify(a.content));
          assert.equal((a.structuredContent as { hosts: unknown[] }).hosts.length, 4);
        } else {
          assert.ok(a.isError);
          assert.match(JSON.stringify(a.content), /no-such-host-0/);
        }
      }
    }
  };

  it(`answers ${CALLS} calls while nobody reads its stderr, then says how many lines it dropped`, async () => {
    const { client, transport } = await serve(fleet.inventory);
    try {
      await callsOf(client, CALLS);
      const hosts = await client.callTool({ name: 'list_hosts', arguments: {} }, undefined, { timeout: 30_000 });
      assert.ok(!hosts.isError);
      // The reader comes back: the buffered lines go out, then the count of those lost.
      const log = reader(transport.stderr);
      const report = await waitFor(() => log.lines().find((l) => /log lines dropped/.test(l.msg ?? '')), {
        timeoutMs: 20_000,
        everyMs: 200,
        what: 'a line that says how many lines were dropped',
      });
      assert.ok((report.dropped ?? 0) > 0, JSON.stringify(report));
      // Still answering, and logging again.
      await callsOf(client, AT_ONCE);
    } finally {
      await client.close();
    }
  });

  it('an orderly exit in front of a late reader writes every buffered line', async () => {
    const { client, transport } = await serve(fleet.inventory);
    try {
      await callsOf(client, EXIT_CALLS);
    } catch (err) {
      await client.close();
      throw err;
    }
    // The client goes (stdin closes) while stderr is still unread: the gateway exits with its
    // log buffered. The reader starts only after that.
    const closed = client.close();
    // Time to reach its exit with the log buffered: it cannot finish exiting unread, so nothing outside shows it.
    await new Promise((r) => setTimeout(r, 300));
    const log = reader(transport.stderr);
    await log.ended;
    await closed;
    const lines = log.lines();
    assert.equal(lines.filter((l) => l.audit === 'tool' && l.tool === 'list_files').length, EXIT_CALLS);
    // The last line of the session. (Not the channel closings after it: a starved machine may
    // take longer to shut down than the SDK client waits before it kills the server.)
    assert.equal(lines.filter((l) => l.msg === 'MCP client gone').length, 1);
    assert.deepEqual(
      lines.filter((l) => /dropped/.test(l.msg ?? '')),
      [],
    );
  });
});
