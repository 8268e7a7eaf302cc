// The audit trail and its secrets, with a real mTLS agent (token) and the real gateway CLI,
// both at debug, through good calls and refused ones: every tool call and every RPC is one
// JSON "audit" line naming its caller, and no line at any level holds the token or a
// private key.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeTree } from '@fleetls/testkit';
import { type AgentProcess, startAgent } from '../helpers/agent-process.js';
import { agentTlsArgs, makePki, type TestPki } from '../helpers/certs.js';
import { fleetls } from '../helpers/cli.js';

const TOKEN = 'tok-5ecret-0f-the-fleet';
const WRONG = 'tok-wr0ng-but-still-secret';

describe('audit lines, and no secret in any log line at debug', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fleetls-logs-'));
  const tree = join(dir, 'tree');
  let pki: TestPki;
  let agent: AgentProcess;
  const secrets = (): string[] => {
    // The base64 body lines of every private key, and the tokens.
    const keyLines = [pki.serverKey, pki.clientKey].flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .filter((l) => l.length > 20 && !l.startsWith('-----')),
    );
    return [TOKEN, WRONG, ...keyLines];
  };

  before(async () => {
    makeTree(tree, { 'sub/a.txt': 'a' });
    writeFileSync(join(dir, 'token'), `${TOKEN}\n`);
    writeFileSync(join(dir, 'wrong'), `${WRONG}\n`);
    mkdirSync(join(dir, 'certs'));
    pki = makePki(join(dir, 'certs'), ['127.0.0.1']);
    agent = await startAgent({
      allow: [tree],
      tls: true,
      env: { LOG_LEVEL: 'debug' },
      args: [...agentTlsArgs(pki), '--token-file', join(dir, 'token')],
    });
  });
  after(async () => {
    await agent?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('agent and gateway, good and refused calls', async () => {
    const inventory = (token: string) => {
      const file = join(dir, `inv-${token}.yaml`);
      writeFileSync(
        file,
        [
          'hosts:',
          '  a:',
          `    agent: ${agent.address}`,
          'agent_tls:',
          `  ca: ${pki.ca}`,
          `  cert: ${pki.clientCert}`,
          `  key: ${pki.clientKey}`,
          `agent_token_file: ${join(dir, token)}`,
        ].join('\n'),
      );
      return file;
    };
    let gatewayLogs = '';
    let calls = 0;
    for (const token of ['token', 'wrong']) {
      for (const args of [
        ['hosts', '--check'],
        ['tree', `a:${tree}`],
        ['stat', `a:${join(tree, 'sub', 'a.txt')}`],
        ['ls', `a:${tree}/nope`],
      ]) {
        const r = await fleetls(['--log-level', 'debug', '--inventory', inventory(token), ...args], { cwd: dir });
        gatewayLogs += r.stderr;
        calls++;
      }
    }
    const agentLogs = agent.stderr();
    // The runs really logged at debug, on both sides, and saw both outcomes.
    assert.match(gatewayLogs, /"level":"debug"/);
    assert.match(agentLogs, /"level":"debug"/);
    assert.match(gatewayLogs, /bad bearer token/);
    assert.match(agentLogs, /walk end/);
    const jsonLines = (text: string) =>
      text
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    const toolAudits = jsonLines(gatewayLogs).filter((l) => l.audit === 'tool');
    assert.equal(toolAudits.length, calls, 'one audit line per tool call');
    const tree0 = toolAudits.find((l) => l.tool === 'list_directory' && l.outcome === 'ok');
    assert.ok(tree0, 'a tree call');
    assert.match(String(tree0.caller), /^cli:/);
    assert.deepEqual([tree0.selector, tree0.path], ['a', tree]);
    assert.ok(typeof tree0.rows === 'number' && typeof tree0.bytes === 'number' && typeof tree0.ms === 'number');
    const refused = toolAudits.filter((l) => JSON.stringify(l.hostsFailed).includes('"status":"auth"'));
    assert.equal(refused.length, 4, 'every call with the wrong token names the failed host');
    assert.deepEqual([...new Set(toolAudits.map((l) => JSON.stringify(l.hostsOk)))].sort(), ['["a"]', '[]']);
    const rpcAudits = jsonLines(agentLogs).filter((l) => l.audit === 'rpc');
    assert.ok(
      rpcAudits.some((l) => l.rpc === 'Walk' && l.outcome === 'ok' && Number(l.rows) > 0 && Number(l.bytes) > 0),
    );
    assert.ok(rpcAudits.some((l) => l.rpc === 'Stat' && l.outcome === 'ok' && Number(l.bytes) > 0));
    assert.ok(rpcAudits.some((l) => l.outcome === 'not_found'));
    assert.ok(
      rpcAudits.some((l) => l.rpc === 'Stat' && l.outcome === 'unauthenticated'),
      'token refusals too',
    );
    for (const l of rpcAudits) assert.match(String(l.caller), /^cert:CN=gateway \(issuer CN=ca\)$/);

    for (const secret of secrets()) {
      assert.ok(!gatewayLogs.includes(secret), `gateway logged a secret (${secret.slice(0, 6)}…)`);
      assert.ok(!agentLogs.includes(secret), `agent logged a secret (${secret.slice(0, 6)}…)`);
    }
  });
});
