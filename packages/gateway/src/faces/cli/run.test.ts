import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createLogger } from '../../logger.js';
import { diffDirectoryTool } from '../../tools/diff-directory/index.js';
import { listFilesTool } from '../../tools/list-files/index.js';
import type { AnyTool } from '../../tools/tool.js';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, runCli } from './run.js';
import { cliWording } from './tool-flags.js';

const ESC = String.fromCharCode(0x1b);
const logger = createLogger({ name: 'test', level: 'silent' });

class Sink {
  text = '';
  constructor(readonly isTTY = false) {}
  write(s: string) {
    this.text += s;
    return true;
  }
}

async function cli(argv: string[], opts: { cwd: string; tty?: boolean; env?: NodeJS.ProcessEnv }) {
  const stdout = new Sink(opts.tty);
  const stderr = new Sink(opts.tty);
  const code = await runCli({
    argv,
    env: { FLEETLS_INVENTORY: '', ...opts.env },
    cwd: opts.cwd,
    stdout,
    stderr,
    logger,
  });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

describe('runCli', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'fleetls-run-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));
  const tree = join(tmp, 'tree');
  mkdirSync(join(tree, 'sub'), { recursive: true });
  writeFileSync(join(tree, 'f.txt'), 'abc');

  it('prints plain text when stdout is not a terminal', async () => {
    const r = await cli(['tree', `localhost:${tree}`], { cwd: tmp });
    assert.equal(r.code, EXIT_OK);
    assert.equal(r.stdout, `${tree}\n├── f.txt  3 B\n└── sub/\n`);
    assert.equal(r.stderr, '');
  });

  it('colours on a terminal, shows progress on stderr, and clears it', async () => {
    const r = await cli(['tree', `localhost:${tree}`], { cwd: tmp, tty: true });
    assert.equal(r.code, EXIT_OK);
    assert.ok(r.stdout.includes(`${ESC}[1;34msub${ESC}[0m`), r.stdout);
    // Drawn at once, redrawn with the time taken (every half second: how many frames varies), then cleared.
    assert.ok(r.stderr.startsWith(`\r${ESC}[2Kasking hosts… · 0 s`), r.stderr);
    assert.match(
      r.stderr.replaceAll(ESC, '<ESC>'),
      /\r<ESC>\[2K\[#{20}\] 1\/1 hosts answered \(localhost: ok\) · \d+ s/,
    );
    assert.ok(r.stderr.endsWith(`\r${ESC}[2K`), r.stderr);
  });

  it('does not colour when NO_COLOR is set, and shows no progress with --json', async () => {
    const plain = await cli(['tree', `localhost:${tree}`], { cwd: tmp, tty: true, env: { NO_COLOR: '1' } });
    assert.equal(plain.stdout.includes(ESC), false);
    const json = await cli(['tree', `localhost:${tree}`, '--json'], { cwd: tmp, tty: true });
    assert.equal(json.stderr, '');
    assert.equal(JSON.parse(json.stdout).entries.length, 2);
  });

  it('fails with 1 when the path is missing on the host', async () => {
    const r = await cli(['stat', `localhost:${join(tree, 'nope')}`], { cwd: tmp });
    assert.equal(r.code, EXIT_FAILURE);
    assert.match(r.stderr, /^fleetls: localhost: not_found via the gateway's own agent after \d+ ms: /m);
  });

  const usage: [string[], RegExp][] = [
    [['tree'], /error: missing required argument 'SELECTOR:PATH'/],
    [['list', '/x'], /error: unknown command 'list'/],
    [['tree', '/x', '--deep'], /error: unknown option '--deep'/],
    [['tree', '/x', '--depth', 'two'], /--depth expects an integer, got 'two'/],
    [['tree', '/x', '--depth', '0'], /^fleetls: --depth must be an integer from 1 to 10$/m],
    // du's depth bound worded as tree's (issue 40, item 13), not `depth: an integer from 1 to 3 (…)`.
    [['du', '/x', '--depth', '4'], /^fleetls: --depth must be an integer from 1 to 3$/m],
    [['ls', '/x', '--top-n', '5000'], /^fleetls: --top-n must be an integer from 1 to 1000$/m],
    [['ls', '/x', '--limit', '0'], /^fleetls: --limit must be an integer from 1 to 5000$/m],
    [['ls', '/x', '--order-by', 'colour'], /Allowed choices are name, size, modified/],
    [['ls', '/x', '--type', 'pipe'], /Allowed choices are file, directory, symlink, any/],
    [
      ['tree', 'web-1'],
      /^fleetls: SELECTOR:PATH: expected hosts and an absolute path, as localhost:\/etc or web-\*:\/var\/log, got 'web-1'$/m,
    ],
    [['tree', ':/x'], /SELECTOR:PATH: the host selector before ':' is empty/],
    [['tree', 'nope:/x'], /^fleetls: unknown host 'nope'; known hosts: localhost$/m],
    [['tree', 'localhost:relative'], /expected hosts and an absolute path/],
    [['--concurrency', '0', 'hosts'], /--concurrency expects an integer ≥ 1, got '0'/],
    [['--timeout', '0', 'hosts'], /--timeout expects an integer from 1 to 86400, got '0'/],
    [['serve', '--http', 'nowhere'], /^fleetls: --http: expected HOST:PORT, as 127\.0\.0\.1:8765, got 'nowhere'$/m],
  ];
  for (const [argv, re] of usage) {
    it(`exits 2: ${argv.join(' ')}`, async () => {
      const r = await cli(argv, { cwd: tmp });
      assert.equal(r.code, EXIT_USAGE, r.stderr);
      assert.match(r.stderr, re);
      assert.equal(r.stdout, '');
    });
  }

  it('prints help and the version with exit 0', async () => {
    const help = await cli(['--help'], { cwd: tmp });
    assert.equal(help.code, EXIT_OK);
    assert.match(help.stdout, /Usage: fleetls \[options\] \[command\]/);
    const ls = await cli(['ls', '--help'], { cwd: tmp });
    assert.match(ls.stdout, /--order-by <order-by>/);
    assert.equal((await cli(['--version'], { cwd: tmp })).code, EXIT_OK);
  });
});

describe('cliWording', () => {
  it("names a tool's arguments as the flags typed on the command line", () => {
    const ls = listFilesTool as AnyTool;
    assert.equal(
      cliWording('top_n must be an integer from 1 to 1000', ls),
      '--top-n must be an integer from 1 to 1000',
    );
    assert.equal(cliWording('limit must be an integer', ls), '--limit must be an integer');
    assert.equal(cliWording('host: expected a host selector', ls), 'SELECTOR: expected a host selector');
    assert.equal(cliWording("unknown host 'limit'", ls), "unknown host 'limit'");
    assert.equal(
      cliWording('max_items_per_dir must be…', diffDirectoryTool as AnyTool),
      '--max-items-per-dir must be…',
    );
  });
});
