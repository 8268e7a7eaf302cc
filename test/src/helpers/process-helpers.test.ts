// The process helpers kill what they started when it does not start in time, and when the
// test process exits without stopping it: a start-up timeout used to leave the agent (or
// gateway) running after its test had failed, holding a port and CPU for every test after it
// (issue 18).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { waitFor } from '@fleetls/testkit';
import { startAgent } from './agent-process.js';
import { startGateway } from './gateway-process.js';

/** Whether a process with this pid still exists (a zombie is reaped by Node once it exits). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('process helpers on a start-up timeout', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'fleetls-helpers-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('startAgent kills an agent that never says it listens', async () => {
    // The wrapper execs a silent sleep in place of node: the same pid, and no "listening" line ever.
    const pidFile = join(tmp, 'agent.pid');
    await assert.rejects(
      startAgent({
        allow: [tmp],
        wrap: ['sh', '-c', `echo $$ > ${pidFile}; exec sleep 600`, 'sh'],
        timeoutMs: 1000,
      }),
      /agent log line not seen within 1000 ms/,
    );
    const pid = Number(readFileSync(pidFile, 'utf8'));
    assert.ok(pid > 0);
    await waitFor(() => !alive(pid), { what: `the silent agent (pid ${pid}) gone`, timeoutMs: 30_000 });
  });

  it('a gateway that never prints what waitFor waits for is killed', async () => {
    const silent = join(tmp, 'silent.mjs');
    writeFileSync(silent, 'setInterval(() => {}, 1000);\n');
    const gw = startGateway([], {}, { main: silent });
    await assert.rejects(gw.waitFor(/MCP over HTTP at (\S+)/, 1000), /within 1000 ms \(killed\)/);
    const pid = gw.child.pid as number;
    await waitFor(() => !alive(pid), { what: `the silent gateway (pid ${pid}) gone`, timeoutMs: 30_000 });
    assert.equal(gw.child.signalCode, 'SIGKILL');
  });

  it('a test process that exits without stopping its gateway takes it along', async () => {
    const silent = join(tmp, 'silent-too.mjs');
    writeFileSync(silent, 'setInterval(() => {}, 1000);\n');
    // A stand-in for a test file that ends past its after() hooks: starts a gateway, prints its pid, exits.
    const helper = new URL('./gateway-process.js', import.meta.url).href;
    const script = `import { startGateway } from ${JSON.stringify(helper)};
const gw = startGateway([], {}, { main: ${JSON.stringify(silent)} });
console.log(gw.child.pid);
setTimeout(() => process.exit(0), 200);`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    const pid = Number(out.trim());
    assert.ok(pid > 0, out);
    await waitFor(() => !alive(pid), { what: `the orphaned gateway (pid ${pid}) gone`, timeoutMs: 30_000 });
  });
});
