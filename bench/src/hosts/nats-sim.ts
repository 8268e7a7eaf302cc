#!/usr/bin/env node
import { loadContract } from '@fleetls/proto';
// Bench only: many simulated hosts on NATS in one process (issue 20 point 6), not the agent.
//   node nats-sim.js URL FIRST COUNT HEARTBEAT_MS
// (URL may list several servers, comma-separated: the process connects to one of them.)
// Registers hosts sim-FIRST … sim-(FIRST+COUNT-1) in the registry bucket (a plain publish on
// each key's subject, every heartbeat, as many agents would) and answers every one's Walk
// from memory (80 files: ranked by size for a top_n, in name order otherwise; every 997th host,
// sim-00996, sim-01993 …, has its smallest file one byte larger, so diff_directory has an odd
// group to find, one that never ranks in a top 10) and Stat (not
// found, with the agent headers a probe reads), over the agent's NATS protocol. Replies are
// encoded once per distinct request and their headers built once: the simulator shares the
// gateway's cores, so what it spends per host is taken from the gateway's figures. Prints
// {"msg":"registered"} on stderr once the first round of registrations is out. It counts the
// walks each host was asked: a request on `fleetls-bench.sim.FIRST.asked` answers how many
// hosts were asked once, never, or more than once since the last such request (the bench's
// proof that every host answered exactly once), and by whom (`byAsker`: walks per asking
// connection, its reply subject's inbox prefix: a call split between gateways shows each
// gateway's share), and starts counting again.
import { agentSubjects, frame, HDR, hostFromToken, hostToken, REGISTRY_BUCKET } from '@fleetls/runtime/nats';
import { connect, type Msg, headers as natsHeaders } from '@nats-io/transport-node';
import { stubRows } from './stub-rows.js';

const [url, firstArg, countArg, heartbeatArg] = process.argv.slice(2);
const first = Number(firstArg);
const count = Number(countArg);
const heartbeatMs = Number(heartbeatArg);
const VERSION = '0.0.0-sim';

async function main(): Promise<void> {
  const nc = await connect({
    servers: url.split(','),
    name: `fleetls bench sim ${first}+${count}`,
    maxReconnectAttempts: -1,
  });
  const walk = loadContract().proto.fleetls.v1.Agent.service.Walk;
  const same = stubRows(80, (i) => ({ path: `file-${String(i).padStart(3, '0')}.log`, depth: 1 }));
  const odd = same.map((r, i) => (i === 0 ? { entry: { ...r.entry, size: r.entry.size + 1 } } : r));
  const isOdd = (i: number) => (first + i) % 997 === 996;
  const names = Array.from({ length: count }, (_, i) => `sim-${String(first + i).padStart(5, '0')}`);
  // Each host's registration, the same bytes every heartbeat (as an agent's).
  const startedAt = new Date().toISOString();
  const registrations = names.map((name) => ({
    subject: `$KV.${REGISTRY_BUCKET}.${hostToken(name)}`,
    body: JSON.stringify({
      name,
      // No claims: labels and groups are the operator's (the inventory), and a claim is a warning per host.
      labels: {},
      groups: [],
      version: VERSION,
      capabilities: ['walk', 'stat'],
      heartbeatMs,
      startedAt,
    }),
  }));
  // In batches, each flushed: a burst of 25,000 writes to the registry's replicated stream at
  // once is what an agent fleet never does (its heartbeats are spread).
  const register = async () => {
    for (let i = 0; i < registrations.length; i += 1000) {
      for (const r of registrations.slice(i, i + 1000)) nc.publish(r.subject, r.body);
      await nc.flush();
    }
  };
  const asked = new Uint32Array(count);
  const byAsker = new Map<string, number>();

  const agentHeaders = () => {
    const h = natsHeaders();
    h.set(HDR.version, VERSION);
    h.set(HDR.features, '');
    return h;
  };
  // The two messages of every walk's reply: headers first, then the rows and summary, last.
  const first0 = agentHeaders();
  first0.set(HDR.seq, '0');
  const last1 = natsHeaders();
  last1.set(HDR.seq, '1');
  last1.set(HDR.end, '1');
  /** The reply body of each distinct request (a fan-out asks every host the same). */
  const bodies = new Map<string, Buffer>();
  const bodyFor = (data: Uint8Array, oddHost: boolean): Buffer => {
    const key = `${oddHost ? 1 : 0}${Buffer.from(data).toString('latin1')}`;
    let body = bodies.get(key);
    if (!body) {
      const all = oddHost ? odd : same;
      const byName = [...all].sort((a, b) => Buffer.compare(a.entry.path, b.entry.path));
      const req = walk.requestDeserialize(Buffer.from(data)) as { topN?: number; direction?: string };
      const topN = req.topN ?? 0;
      const desc = req.direction === 'DIRECTION_DESCENDING';
      const chosen =
        topN > 0
          ? [...all].sort((a, b) => (desc ? b.entry.size - a.entry.size : a.entry.size - b.entry.size)).slice(0, topN)
          : byName;
      body = Buffer.concat([
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
      if (bodies.size > 64) bodies.clear();
      bodies.set(key, body);
    }
    return body;
  };

  // A subscription per host, as each agent has: the server routes a host's requests to its
  // process only (one wildcard per process had every process read every host's requests).
  const walkSubs = new Map(names.map((name, i) => [agentSubjects(name).walk, i]));
  const onWalk = (_err: unknown, msg: Msg) => {
    if (!msg.reply) return;
    const i = walkSubs.get(msg.subject);
    if (i !== undefined) asked[i]++;
    const asker = msg.reply.slice(0, msg.reply.lastIndexOf('.'));
    byAsker.set(asker, (byAsker.get(asker) ?? 0) + 1);
    nc.publish(msg.reply, undefined, { headers: first0 });
    nc.publish(msg.reply, bodyFor(msg.data, i !== undefined && isOdd(i)), { headers: last1 });
  };
  const onStat = (_err: unknown, msg: Msg) => {
    const base = msg.subject.slice(0, -'.stat'.length);
    if (!msg.reply) return;
    const h = agentHeaders();
    h.set(HDR.status, '5'); // NOT_FOUND: the simulated host holds no files to stat
    h.set(HDR.details, `${hostFromToken(base.split('.').pop() ?? '')}: simulated host`);
    msg.respond(undefined, { headers: h });
  };
  for (const name of names) {
    const subjects = agentSubjects(name);
    nc.subscribe(subjects.walk, { callback: onWalk });
    nc.subscribe(subjects.stat, { callback: onStat });
  }
  nc.subscribe(`fleetls-bench.sim.${first}.asked`, {
    callback: (_err, msg) => {
      const n = { never: 0, once: 0, more: 0 };
      for (const a of asked) {
        if (a === 0) n.never++;
        else if (a === 1) n.once++;
        else n.more++;
      }
      asked.fill(0);
      msg.respond(JSON.stringify({ ...n, byAsker: Object.fromEntries(byAsker) }));
      byAsker.clear();
    },
  });
  await nc.flush();
  await register();
  setInterval(() => void register(), heartbeatMs);
  process.stderr.write(`${JSON.stringify({ msg: 'registered', count })}\n`);
  process.on('SIGTERM', () => void nc.close().finally(() => process.exit(0)));
}

main().catch((err) => {
  process.stderr.write(`nats-sim: ${String(err)}\n`);
  process.exit(1);
});
