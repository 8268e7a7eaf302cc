// A real TLS agent turning connections away before any call says so in its log, with the
// peer and a reason an operator can act on (issue 40, item 8): no client certificate, one of
// another CA (naming this agent's CA), plaintext; and the gateway that spoke plaintext to it
// reads that it speaks TLS.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '@fleetls/testkit';
import * as grpc from '@grpc/grpc-js';
import { type AgentProcess, agentClient, startAgent, walkAll } from '../helpers/agent-process.js';
import { agentTlsArgs, makePki, type TestPki } from '../helpers/certs.js';
import { fleetls } from '../helpers/cli.js';

interface LogLine {
  msg?: string;
  peer?: string;
  reason?: string;
}

describe('agent: refused connections are logged with a reason', () => {
  let dir: string;
  let pki: TestPki;
  let agent: AgentProcess;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-refusals-'));
    pki = makePki(dir, ['127.0.0.1', 'localhost']);
    agent = await startAgent({ allow: [dir], tls: true, args: agentTlsArgs(pki) });
  });
  after(async () => {
    await agent?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const read = (f: string) => fs.readFileSync(f);
  const sni = { 'grpc.ssl_target_name_override': 'localhost' };
  const refusals = (): LogLine[] =>
    agent
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as LogLine)
      .filter((l) => l.msg === 'refused a connection before any call');

  /** Connects with `creds` (the call fails), then the agent's log line of it. */
  const refusedWith = async (creds: grpc.ChannelCredentials): Promise<LogLine> => {
    const seen = refusals().length;
    const client = agentClient(agent.address, creds, sni);
    await assert.rejects(walkAll(client, { path: dir, maxDepth: 1 }, undefined, 5000));
    client.close();
    const line = await waitFor(() => refusals()[seen]);
    assert.match(line.peer ?? '', /^127\.0\.0\.1:\d+$/);
    return line;
  };

  it('names plaintext as plaintext', async () => {
    const line = await refusedWith(grpc.credentials.createInsecure());
    assert.match(line.reason ?? '', /^plaintext: the client did not speak TLS/);
  });

  it('says a client came without a certificate', async () => {
    const line = await refusedWith(grpc.credentials.createSsl(read(pki.ca)));
    assert.match(line.reason ?? '', /^no client certificate/);
  });

  it("says a client certificate is of another CA, naming this agent's", async () => {
    const line = await refusedWith(
      grpc.credentials.createSsl(read(pki.ca), read(pki.strangerKey), read(pki.strangerCert)),
    );
    assert.match(line.reason ?? '', /^a client certificate this agent's CA \(.*CN=.+\) did not issue/);
  });

  it('a gateway reaching it in plaintext reads that the agent speaks TLS, not a bare closed connection', async () => {
    const inventory = path.join(dir, 'plaintext.yaml');
    fs.writeFileSync(inventory, ['hosts:', `  a: { agent: "${agent.address}" }`, 'agent_tls: insecure', ''].join('\n'));
    const r = await fleetls(['--inventory', inventory, 'hosts', '--check', '--json']);
    assert.equal(r.code, 1);
    const [row] = (JSON.parse(r.stdout) as { hosts: { status: string; message?: string }[] }).hosts;
    assert.equal(row?.status, 'unreachable');
    assert.match(
      row?.message ?? '',
      /the agent speaks TLS and this connection was plaintext: name its CA, certificate and key in agent_tls/,
    );
  });
});
