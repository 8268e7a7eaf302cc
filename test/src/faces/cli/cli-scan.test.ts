// The CLI waits for every host as a scan does (issue 21 ask 4): a host that answers after
// 22 s, past an MCP call's 20 s host budget, is listed; --timeout bounds the whole command,
// the hosts not done by then are `timeout` rows named on stderr. Real processes: the gateway
// CLI and one process of stub agents (the real agent handler's answer, after each delay).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fleetls } from '../../helpers/cli.js';
import { type SlowAgents, startSlowAgents } from '../../helpers/slow-agents.js';

/** Past the 20 s an MCP call gives one host (options.deadlineMs). */
const LATE_MS = 22_000;

describe('fleetls ls over slow hosts', () => {
  const work = mkdtempSync(join(tmpdir(), 'fleetls-cli-scan-'));
  const data = join(work, 'data');
  let agents: SlowAgents;
  const inventory = (names: string[]) => {
    const file = join(work, `${names.join('-')}.yaml`);
    const lines = names.map((n) => `  ${n}: { agent: "${agents.addresses[Number(n.slice(1))]}" }`);
    writeFileSync(file, ['hosts:', ...lines, 'agent_tls: insecure', ''].join('\n'));
    return file;
  };
  before(async () => {
    mkdirSync(data, { recursive: true });
    writeFileSync(join(data, 'a.log'), 'abc');
    agents = await startSlowAgents(data, [0, LATE_MS, null], join(work, 'agents.json'));
  });
  after(async () => {
    await agents?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('waits for a host past the MCP host budget by default', async () => {
    const r = await fleetls(['--inventory', inventory(['h0', 'h1']), 'ls', `all:${data}`], { cwd: work });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /h0\s.*a\.log/);
    assert.match(r.stdout, /h1\s.*a\.log/);
  });

  it('--timeout bounds the command: the hosts not done are timeout rows, named on stderr', async () => {
    const r = await fleetls(['--inventory', inventory(['h0', 'h1', 'h2']), '--timeout', '3', 'ls', `all:${data}`], {
      cwd: work,
    });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /h0\s.*a\.log/);
    assert.doesNotMatch(r.stdout, /h1\s.*a\.log/);
    assert.match(r.stderr, /h1: timeout/);
    assert.match(r.stderr, /h2: timeout/);
  });
});
