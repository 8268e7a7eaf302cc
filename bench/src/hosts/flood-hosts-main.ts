// The bench's hostile hosts in a process of their own (flood-hosts.ts): argv[2] is the NATS URL.
// stdout: one JSON line {"address"} once both listen, then one {"written","cancelled"} line per
// line read on stdin ("report", or "slice N" to set the NATS slices' size first).
import { floodAgent, natsFlood } from './flood-hosts.js';

const url = process.argv[2];
if (url === undefined) {
  console.error('usage: flood-hosts-main NATS_URL (started by hostile-floods.ts)');
  process.exit(2);
}
let sliceBytes = 0;
const grpcFlood = await floodAgent();
const web1 = await natsFlood(url, () => sliceBytes);
const say = (o: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(o)}\n`);
say({ address: grpcFlood.address });
let pending = '';
process.stdin.setEncoding('utf8').on('data', (chunk: string) => {
  pending += chunk;
  for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
    const line = pending.slice(0, nl).trim();
    pending = pending.slice(nl + 1);
    const m = /^slice (\d+)$/.exec(line);
    if (m) sliceBytes = Number(m[1]);
    say({ grpc: grpcFlood.seen, nats: web1.seen });
  }
});
// The bench going away ends this process too (stdin is its pipe).
process.stdin.on('end', () => {
  grpcFlood.close();
  void web1.close().finally(() => process.exit(0));
});
