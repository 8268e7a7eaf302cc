#!/usr/bin/env node
// Bench only: many simulated hosts on NATS in one process (issue 20 point 6), not the agent.
//   node nats-sim.js URL FIRST COUNT HEARTBEAT_MS
// Registers hosts sim-FIRST … sim-(FIRST+COUNT-1) in the registry bucket (a plain publish on
// each key's subject, every heartbeat, as many agents would) and answers every one's Walk
// from memory (80 files: ranked by size for a top_n, in name order otherwise) and Stat (not
// found, with the agent headers a probe reads), over the agent's NATS protocol. Prints
// {"msg":"registered"} on stderr once the first round of registrations is out.
import { agentSubjects, frame, HDR, hostFromToken, hostToken, REGISTRY_BUCKET } from '@fleetls/agent/nats';
import { loadContract } from '@fleetls/proto';
import { connect, headers as natsHeaders } from '@nats-io/transport-node';

const [url, firstArg, countArg, heartbeatArg] = process.argv.slice(2);
const first = Number(firstArg);
const count = Number(countArg);
const heartbeatMs = Number(heartbeatArg);
const VERSION = '0.0.0-sim';

interface SimRow {
  entry: Record<string, unknown> & { size: number; path: Buffer };
}

function rows(): SimRow[] {
  const out: SimRow[] = [];
  for (let i = 0; i < 80; i++) {
    out.push({
      entry: {
        path: Buffer.from(`file-${String(i).padStart(3, '0')}.log`),
        type: 'ENTRY_TYPE_FILE',
        size: ((i * 7919) % 1_000_003) + 1,
        mtimeSec: 1_700_000_000 + i,
        mtimeNsec: 0,
        utcOffsetMin: 0,
        mode: 0o100644,
        uid: 0,
        gid: 0,
        inode: 1000 + i,
        nlink: 1,
        depth: 1,
      },
    });
  }
  return out;
}

async function main(): Promise<void> {
  const nc = await connect({ servers: [url], name: `fleetls bench sim ${first}+${count}`, maxReconnectAttempts: -1 });
  const walk = loadContract().proto.fleetls.v1.Agent.service.Walk;
  const all = rows();
  const byName = [...all].sort((a, b) => Buffer.compare(a.entry.path, b.entry.path));
  const names = Array.from({ length: count }, (_, i) => `sim-${String(first + i).padStart(5, '0')}`);
  const mine = new Set(names.map((n) => agentSubjects(n).base));

  const register = () => {
    const startedAt = new Date().toISOString();
    for (const name of names) {
      const reg = { name, labels: { sim: 'yes' }, groups: ['sim'], version: VERSION, capabilities: ['walk', 'stat'] };
      nc.publish(`$KV.${REGISTRY_BUCKET}.${hostToken(name)}`, JSON.stringify({ ...reg, heartbeatMs, startedAt }));
    }
  };

  const agentHeaders = () => {
    const h = natsHeaders();
    h.set(HDR.version, VERSION);
    h.set(HDR.features, '');
    return h;
  };

  // One wildcard subscription for all of this process's hosts; another process's are ignored.
  nc.subscribe('fleetls.agent.*.walk', {
    callback: (_err, msg) => {
      const base = msg.subject.slice(0, -'.walk'.length);
      if (!mine.has(base) || !msg.reply) return;
      const req = walk.requestDeserialize(Buffer.from(msg.data)) as { topN?: number; direction?: string };
      const topN = req.topN ?? 0;
      const desc = req.direction === 'DIRECTION_DESCENDING';
      const chosen =
        topN > 0
          ? [...all].sort((a, b) => (desc ? b.entry.size - a.entry.size : a.entry.size - b.entry.size)).slice(0, topN)
          : byName;
      const h0 = agentHeaders();
      h0.set(HDR.seq, '0');
      nc.publish(msg.reply, undefined, { headers: h0 });
      const body = Buffer.concat([
        frame(walk.responseSerialize({ rows: chosen } as never) as Buffer),
        frame(
          walk.responseSerialize({
            rows: [],
            summary: {
              entriesSent: chosen.length,
              entriesSeen: all.length,
              entriesMatched: all.length,
              truncations: [],
              elapsedMs: 0,
            },
          } as never) as Buffer,
        ),
      ]);
      const h1 = natsHeaders();
      h1.set(HDR.seq, '1');
      h1.set(HDR.end, '1');
      nc.publish(msg.reply, body, { headers: h1 });
    },
  });
  nc.subscribe('fleetls.agent.*.stat', {
    callback: (_err, msg) => {
      const base = msg.subject.slice(0, -'.stat'.length);
      if (!mine.has(base) || !msg.reply) return;
      const h = agentHeaders();
      h.set(HDR.status, '5'); // NOT_FOUND: the simulated host holds no files to stat
      h.set(HDR.details, `${hostFromToken(base.split('.').pop() ?? '')}: simulated host`);
      msg.respond(undefined, { headers: h });
    },
  });
  await nc.flush();
  register();
  await nc.flush();
  setInterval(register, heartbeatMs);
  process.stderr.write(`${JSON.stringify({ msg: 'registered', count })}\n`);
  process.on('SIGTERM', () => void nc.close().finally(() => process.exit(0)));
}

main().catch((err) => {
  process.stderr.write(`nats-sim: ${String(err)}\n`);
  process.exit(1);
});
