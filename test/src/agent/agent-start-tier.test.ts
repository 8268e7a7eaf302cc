// The shipped agent starts in V8's efficiency mode (scripts/package/exec-argv.json: its start
// runs once, not worth the optimizing compilers' memory at rest) and leaves it once it serves,
// so that calls run at full tier. Run here as the executable runs it: the workspace build on
// the Node runtime the executables carry, with the executable's flags. V8's own answer is read
// by a probe preloaded with --allow-natives-syntax, at load and again on SIGUSR2 after SERVING.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type AgentProcess, healthCheck, REPO_ROOT, startAgent } from '../helpers/agent-process.js';

/** The executables' Node runtime (scripts/package/runtime), installed from its lockfile when absent. */
function runtimeNode(): string {
  const runtime = path.join(REPO_ROOT, 'scripts/package/runtime.mjs');
  return execFileSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `process.stdout.write((await import(${JSON.stringify(runtime)})).runtimeNode(${JSON.stringify(REPO_ROOT)}))`,
    ],
    { encoding: 'utf8', timeout: 300_000 },
  );
}

const PROBE = `const atLoad = %IsEfficiencyModeEnabled();
process.on('SIGUSR2', () => {
  process.stderr.write(JSON.stringify({ probe: 'tier', atLoad, now: %IsEfficiencyModeEnabled() }) + '\\n');
});
`;

describe('agent start tier', () => {
  let dir: string;
  let agent: AgentProcess;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-tier-'));
    const probe = path.join(dir, 'probe.mjs');
    fs.writeFileSync(probe, PROBE);
    const flags = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'scripts/package/exec-argv.json'), 'utf8'))[
      'fleetls-agent'
    ] as string[];
    agent = await startAgent({
      allow: [dir],
      node: [runtimeNode(), ...flags, '--allow-natives-syntax', '--import', probe],
    });
  });
  after(async () => {
    await agent?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('starts in efficiency mode and serves out of it', async () => {
    assert.equal(await healthCheck(agent.address), 'SERVING');
    agent.child.kill('SIGUSR2');
    const line = await agent.waitForLog((l) => l.probe === 'tier');
    assert.deepEqual({ atLoad: line.atLoad, now: line.now }, { atLoad: true, now: false });
  });
});
