// Load on the gateway: 200 concurrent MCP tool calls against one gateway (stdio) with 20
// agents at their default limits. Every call answers; each host is either whole or turned
// away by its full agent as a clear status row (error, "too many concurrent walks"; on a
// busy machine possibly timeout at either deadline, or the whole call refused at the caller's
// scan cap when more calls outlive the call deadline than it admits), never wrong rows, and the merged
// list is right for the hosts that answered. Nothing crashes, nothing stays stuck (a later
// call gets every host), and peak resident memory of the gateway and of each agent stays
// under a stated bound. Timings belong to bench/.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { checkRankedAnswer, type RankedAnswer } from '@fleetls/gateway/testing';
import { makeTree, range, waitFor } from '@fleetls/testkit';
import { type AgentProcess, LOADED_HOST_ARGS, startAgent } from '../helpers/agent-process.js';
import { stdioClient } from '../helpers/gateway-process.js';

const AGENTS = 20;
const CALLS = 200;
/** Peak resident memory (VmHWM) allowed for the gateway and for each agent. */
const PEAK_MB = 512;
/** Files in the listed directory: f0..f9, sized 100..1000 bytes. */
const FILES = 10;

function peakMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1]) / 1024;
}

describe('load on one gateway', () => {
  const work = mkdtempSync(join(tmpdir(), 'fleetls-load-mcp-'));
  const dir = join(work, 'small');
  const agents: AgentProcess[] = [];

  before(async () => {
    makeTree(
      dir,
      range(
        FILES,
        (i) => `f${i}`,
        (i) => ({ size: (i + 1) * 100 }),
      ),
    );
    // Five at a time: twenty agents starting at once on two cores can miss their start timeout.
    for (let i = 0; i < AGENTS; i += 5) {
      agents.push(
        ...(await Promise.all(Array.from({ length: 5 }, () => startAgent({ allow: [work], args: LOADED_HOST_ARGS })))),
      );
    }
  });
  after(async () => {
    await Promise.all(agents.map((a) => a.stop()));
    rmSync(work, { recursive: true, force: true });
  });

  it(`${CALLS} concurrent MCP calls over ${AGENTS} agents: every call answers, every host whole or refused`, async () => {
    const inventory = join(work, 'fleet.yaml');
    writeFileSync(
      inventory,
      ['hosts:', ...agents.map((a, i) => `  h${i}: { agent: "${a.address}" }`), 'agent_tls: insecure', ''].join('\n'),
    );
    // Keep the tail of the gateway's log to show on failure. (Unread, the pipe would fill and
    // the gateway drop log lines, never block: log-never-blocks.test.ts.)
    let stderr = '';
    const { client, transport } = await stdioClient(
      'load-test',
      {},
      {
        args: ['--inventory', inventory],
        stderr: (chunk) => {
          stderr = (stderr + chunk).slice(-4000);
        },
      },
    );
    const gatewayPid = transport.pid as number;
    const call = (topN: number) =>
      client.callTool(
        {
          name: 'list_files',
          arguments: { host: 'all', path: dir, type: 'file', order_by: 'size', sort: 'descending', top_n: topN },
        },
        undefined,
        // Past the gateway's own call deadline (40 s): a call still open then is a stall.
        { timeout: 90_000 },
      );
    try {
      const topN = (i: number) => 3 + (i % 5);
      const answers = await Promise.all(Array.from({ length: CALLS }, (_, i) => call(topN(i))));
      let okWalks = 0;
      let refused = 0;
      let timedOut = 0;
      let partial = 0;
      let pending = 0;
      let capRefusedCalls = 0;
      const hosts = agents.map((_, k) => `h${k}`);
      const sizes = Array.from({ length: FILES }, (_, k) => (k + 1) * 100);
      for (const [i, res] of answers.entries()) {
        // A call that outlives the call deadline goes on as a scan; on a machine loaded enough
        // that more than the caller's scan cap (default 4) do, the rest are refused as a whole,
        // clearly and naming the cap: an answer, not a loss.
        if (
          res.isError &&
          /resource_exhausted: \d+ scans of this caller are still running \(at most 4\)/.test(
            JSON.stringify(res.content),
          )
        ) {
          capRefusedCalls++;
          continue;
        }
        assert.ok(!res.isError, JSON.stringify(res.content));
        // Not ok: refused by a full agent, or (two cores shared with other work) not done
        // within a deadline: a status row that says so, with no rows or (partial) the rows
        // that arrived.
        const n = checkRankedAnswer(res.structuredContent as RankedAnswer, hosts, topN(i), sizes);
        okWalks += n.ok;
        refused += n.refused;
        timedOut += n.timedOut;
        partial += n.partial;
        pending += n.pending;
      }
      assert.ok(okWalks > 0, 'some host walks got through');
      assert.equal(okWalks + refused + timedOut + partial + pending, (CALLS - capRefusedCalls) * AGENTS);
      // Calls that outlived the call deadline went on as scans: a client done with them cancels
      // them (they would hold the caller's scan slots until they end).
      for (const res of answers) {
        const cursor = (res.structuredContent as RankedAnswer).next_cursor;
        if (cursor) {
          const st = await client.callTool({ name: 'scan_status', arguments: { cursor, cancel: true } });
          assert.ok(!st.isError, JSON.stringify(st.content));
        }
      }
      // Nothing stayed stuck: admission slots and channels come back. Walks the gateway gave
      // up on may still be ending on their agents, so a few tries are allowed.
      let last: RankedAnswer | undefined;
      const later = await waitFor(
        async () => {
          last = (await call(3)).structuredContent as RankedAnswer;
          return last.hosts.every((h) => h.status === 'ok') ? last : undefined;
        },
        {
          timeoutMs: 20_000,
          everyMs: 1000,
          what: () => `every host ok: ${JSON.stringify(last?.hosts.filter((h) => h.status !== 'ok'))}`,
        },
      );
      assert.deepEqual(
        later.items.map((it) => it.size),
        [1000, 1000, 1000],
      );
      assert.ok(peakMb(gatewayPid) < PEAK_MB, `gateway peak ${peakMb(gatewayPid)} MiB`);
      for (const a of agents) {
        assert.equal(a.child.exitCode, null, `agent ${a.address} exited`);
        assert.ok(peakMb(a.pid) < PEAK_MB, `agent ${a.address} peak ${peakMb(a.pid)} MiB`);
      }
    } catch (err) {
      throw new Error(`${(err as Error).message}\ngateway stderr (tail):\n${stderr}`, { cause: err });
    } finally {
      await client.close();
    }
  });
});
