import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Command } from 'commander';
import { EXIT_USAGE, runCli, verbOf } from './run.js';
import { VERB_TOOLS } from './tool-command.js';

describe('the verb of a command line (what decides which modules load)', () => {
  const program = new Command('fleetls')
    .option('--inventory <file>')
    .option('--no-color')
    .version('1', '-V, --version');
  it('skips global flags and the values they take', () => {
    assert.equal(verbOf(program, ['--inventory', 'ls', 'tree', 'localhost:/etc']), 'tree');
    assert.equal(verbOf(program, ['--inventory=x.yaml', 'ls', 'localhost:/etc']), 'ls');
    assert.equal(verbOf(program, ['--no-color', 'serve', '--http', '127.0.0.1:0']), 'serve');
  });
  it('is undefined when there is none', () => {
    assert.equal(verbOf(program, ['--version']), undefined);
    assert.equal(verbOf(program, []), undefined);
    assert.equal(verbOf(program, ['--inventory', 'x.yaml']), undefined);
  });
});

describe('an unknown flag', () => {
  const run = async (argv: string[]) => {
    let stderr = '';
    const code = await runCli({
      argv,
      env: {},
      cwd: process.cwd(),
      stdout: { write: () => true },
      stderr: { write: (s: string) => (stderr += s) },
    });
    return { code, stderr };
  };
  it('is refused with the nearest known flag, as MCP names the nearest argument', async () => {
    for (const typed of ['--MAX_DEPTH', '--maxDepth', '--max_depth', '--max-detph']) {
      const r = await run(['ls', 'localhost:/', typed, '1']);
      assert.equal(r.code, EXIT_USAGE, typed);
      assert.match(r.stderr, new RegExp(`unknown option '${typed}'\\n\\(Did you mean --max-depth\\?\\)`), typed);
    }
  });
  it('says only that it is unknown when nothing is near', async () => {
    const r = await run(['ls', 'localhost:/', '--zzz']);
    assert.equal(r.code, EXIT_USAGE);
    assert.match(r.stderr, /unknown option '--zzz'\n\(run fleetls --help/);
  });
});

describe('the verb table (a known verb loads its own tool alone)', () => {
  it('names every tool with a CLI face, by its command, and no other', async () => {
    const { TOOLS } = await import('../../tools/registry.js');
    const faces = TOOLS.flatMap((t) => (t.cli ? [[t.cli.command, t.name] as const] : []));
    const table = await Promise.all(
      Object.entries(VERB_TOOLS).map(async ([verb, load]) => [verb, (await load()).name] as const),
    );
    assert.deepEqual(new Map(table), new Map(faces));
  });
});
