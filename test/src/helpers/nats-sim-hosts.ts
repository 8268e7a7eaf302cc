// Simulated hosts on NATS for the tests: one connection registers `count` host identities
// in the registry and answers each one's Walk from memory, over the agent's NATS protocol
// (as the bench's nats-sim does), each host with its own file sizes, so a merge over hosts
// has one right answer (`expectedTop`). It counts the walks each host was asked, and by whom:
// a walk's reply subject is its gateway's inbox prefix and a token (hosts/agent/nats/reply-mux.ts).
import { loadContract } from '@fleetls/proto';
import { agentSubjects, frame, HDR, hostToken, REGISTRY_BUCKET } from '@fleetls/runtime/nats';
import { type Msg, type NatsConnection, headers as natsHeaders } from '@nats-io/transport-node';

const walkCodec = loadContract().proto.fleetls.v1.Agent.service.Walk;
export const SIM_FILES = 20;
/** A prime past every (host, file) index: sizes are (index × 7919 mod it) + 1, all distinct. */
const SIZE_MOD = 1_000_003;

export const simName = (k: number) => `sim-${String(k).padStart(5, '0')}`;

function sizeOf(k: number, i: number): number {
  return (((k * SIM_FILES + i) * 7919) % SIZE_MOD) + 1;
}

/** The top `n` files by size, descending, over hosts 0..count-1: `host:path size`. */
export function expectedTop(count: number, n: number): string[] {
  const all: { key: string; size: number }[] = [];
  for (let k = 0; k < count; k++)
    for (let i = 0; i < SIM_FILES; i++) all.push({ key: `${simName(k)}:f-${i}.log`, size: sizeOf(k, i) });
  all.sort((a, b) => b.size - a.size);
  return all.slice(0, n).map((r) => `${r.key} ${r.size}`);
}

export interface SimHosts {
  /** Walks asked of each host since the last reset, by host index. */
  asked: Uint32Array;
  /** Walks asked since the last reset, by the asking connection's inbox prefix. */
  byAsker: Map<string, number>;
  /** The inbox prefix of each host's last walk. */
  lastAsker: (string | undefined)[];
  reset(): void;
  /** Walks for which `hold(asker)` is true are counted and never answered (a gateway held mid-call). */
  hold?: (asker: string) => boolean;
  stop(): void;
}

export function startSimHosts(nc: NatsConnection, count: number): SimHosts {
  const names = Array.from({ length: count }, (_, k) => simName(k));
  const sim: SimHosts = {
    asked: new Uint32Array(count),
    byAsker: new Map(),
    lastAsker: new Array(count).fill(undefined),
    reset() {
      sim.asked.fill(0);
      sim.byAsker.clear();
      sim.lastAsker.fill(undefined);
    },
    stop() {
      clearInterval(beat);
      for (const s of subs) s.unsubscribe();
    },
  };
  const register = () => {
    for (const name of names)
      nc.publish(
        `$KV.${REGISTRY_BUCKET}.${hostToken(name)}`,
        JSON.stringify({
          name,
          labels: {},
          groups: [],
          version: '0.0.0-sim',
          capabilities: ['walk', 'stat'],
          heartbeatMs: 60_000,
          startedAt: new Date().toISOString(),
        }),
      );
  };
  const answer = (k: number, msg: Msg) => {
    const req = walkCodec.requestDeserialize(Buffer.from(msg.data)) as { topN?: number; direction?: string };
    const desc = req.direction === 'DIRECTION_DESCENDING';
    const files = Array.from({ length: SIM_FILES }, (_, i) => ({
      entry: {
        path: Buffer.from(`f-${i}.log`),
        type: 'ENTRY_TYPE_FILE',
        size: sizeOf(k, i),
        mtimeSec: 1_700_000_000 + i,
        mode: 0o100644,
        depth: 1,
      },
    }));
    files.sort((a, b) => (desc ? b.entry.size - a.entry.size : a.entry.size - b.entry.size));
    const rows = req.topN ? files.slice(0, req.topN) : files;
    const h0 = natsHeaders();
    h0.set(HDR.seq, '0');
    h0.set(HDR.version, '0.0.0-sim');
    h0.set(HDR.features, '');
    nc.publish(msg.reply as string, undefined, { headers: h0 });
    const h1 = natsHeaders();
    h1.set(HDR.seq, '1');
    h1.set(HDR.end, '1');
    const summary = { entriesSent: rows.length, entriesSeen: SIM_FILES, entriesMatched: SIM_FILES, truncations: [] };
    const body = Buffer.concat([
      frame(walkCodec.responseSerialize({ rows } as never) as Buffer),
      frame(walkCodec.responseSerialize({ rows: [], summary: { ...summary, elapsedMs: 0 } } as never) as Buffer),
    ]);
    nc.publish(msg.reply as string, body, { headers: h1 });
  };
  const subs = names.map((name, k) =>
    nc.subscribe(agentSubjects(name).walk, {
      callback: (err, msg) => {
        if (err || !msg.reply) return;
        const asker = msg.reply.slice(0, msg.reply.lastIndexOf('.'));
        sim.asked[k]++;
        sim.lastAsker[k] = asker;
        sim.byAsker.set(asker, (sim.byAsker.get(asker) ?? 0) + 1);
        if (sim.hold?.(asker)) return;
        answer(k, msg);
      },
    }),
  );
  register();
  // Fresh in the registry whatever the test's length (a registration says 60 s).
  const beat = setInterval(register, 20_000);
  beat.unref();
  return sim;
}
