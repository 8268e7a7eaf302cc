// The man pages and shell completions the packages install (issue 40, item 11): npm run
// package's .deb and .rpm of both programs carry fleetls(1), fleetls-agent(8) and the bash, zsh
// and fish completions, written from the declarations --help prints. The packages here wrap
// stand-in executables (what is checked is the files beside them; packages.test.ts installs
// the real ones); man renders the pages, and bash, zsh and fish load the completions and
// complete a verb, a flag and a flag's choices.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { run } from '@fleetls/testkit';
import { REPO_ROOT } from '../helpers/agent-process.js';

const PACKAGE_MAIN = join(REPO_ROOT, 'scripts/package/main.mjs');
const sh = (cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) =>
  execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...opts });

describe('man pages and completions in the packages', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'fleetls-man-'));
  const out = join(tmp, 'out');
  const root = join(tmp, 'root');
  before(() => {
    const exe = join(tmp, 'exe');
    mkdirSync(exe);
    for (const f of ['fleetls', 'fleetls-agent', 'fsat.node'])
      writeFileSync(join(exe, f), '#!/bin/sh\n', { mode: 0o755 });
    sh(process.execPath, [
      PACKAGE_MAIN,
      '--out',
      out,
      '--only',
      'deb,rpm',
      '--executables',
      exe,
      '--package-version',
      '0.0.1~man',
    ]);
    // The .debs unpacked (no install): what the files say is read from there.
    mkdirSync(root);
    for (const pkg of ['fleetls', 'fleetls-agent'])
      sh('dpkg-deb', ['-x', join(out, `${pkg}_0.0.1~man_amd64.deb`), root]);
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('the .deb and the .rpm of each program hold its man page and its three completions', () => {
    const expect = {
      fleetls: {
        deb: [
          './usr/share/man/man1/fleetls.1.gz',
          './usr/share/bash-completion/completions/fleetls',
          './usr/share/zsh/vendor-completions/_fleetls',
          './usr/share/fish/vendor_completions.d/fleetls.fish',
        ],
        rpm: ['/usr/share/man/man1/fleetls.1.gz', '/usr/share/zsh/site-functions/_fleetls'],
      },
      'fleetls-agent': {
        deb: [
          './usr/share/man/man8/fleetls-agent.8.gz',
          './usr/share/bash-completion/completions/fleetls-agent',
          './usr/share/zsh/vendor-completions/_fleetls-agent',
          './usr/share/fish/vendor_completions.d/fleetls-agent.fish',
        ],
        rpm: ['/usr/share/man/man8/fleetls-agent.8.gz', '/usr/share/bash-completion/completions/fleetls-agent'],
      },
    };
    for (const [pkg, files] of Object.entries(expect)) {
      const deb = sh('dpkg-deb', ['--contents', join(out, `${pkg}_0.0.1~man_amd64.deb`)]);
      for (const f of files.deb)
        assert.match(deb, new RegExp(`^-rw-r--r-- root/root .* ${f.replace(/\./g, '\\.')}$`, 'm'), f);
      const rpm = sh('rpm', ['-qlp', join(out, `${pkg}-0.0.1~man.x86_64.rpm`)]);
      for (const f of files.rpm) assert.ok(rpm.split('\n').includes(f), `${pkg}.rpm: ${f}`);
    }
  });

  it('man renders fleetls(1) with every verb, the flags --help has, examples and exit codes', () => {
    const page = sh('man', ['-l', join(root, 'usr/share/man/man1/fleetls.1.gz')], {
      env: { ...process.env, MANWIDTH: '100', MAN_KEEP_FORMATTING: '' },
    });
    assert.match(page, /^FLEETLS\(1\) +User Commands/);
    for (const verb of ['ls', 'tree', 'diff', 'du', 'stat', 'hosts', 'serve', 'pki init', 'pki issue']) {
      assert.match(page, new RegExp(`^ {3}fleetls ${verb}\\b`, 'm'), verb);
    }
    // A tool's flag with its choices, from its schema; the global flags; the exit codes.
    assert.match(page, /--order-by <order-by>\n +sort key .*\(one of name, size, modified\)/);
    assert.match(page, /--inventory <file>/);
    assert.match(page, /EXIT STATUS\n +0 +every host answered/);
    assert.match(page, /EXAMPLES\n +fleetls tree localhost:\/etc --depth 1/);
    const agent = sh('man', ['-l', join(root, 'usr/share/man/man8/fleetls-agent.8.gz')], {
      env: { ...process.env, MANWIDTH: '100' },
    });
    assert.match(agent, /^FLEETLS-AGENT\(8\) +System Administration/);
    assert.match(agent, /--allow <dir>\n +allowed root, repeatable/);
  });

  it('bash completes verbs, flags and a flag’s choices', async () => {
    const script = join(root, 'usr/share/bash-completion/completions/fleetls');
    const complete = async (...words: string[]) => {
      const r = await run('bash', [
        '-c',
        `source ${script}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _fleetls; echo "\${COMPREPLY[*]}"`,
      ]);
      assert.equal(r.code, 0, r.stderr);
      return r.stdout.trim().split(' ');
    };
    assert.deepEqual(await complete('fleetls', 'l'), ['ls']);
    assert.deepEqual(await complete('fleetls', 'ls', '--ord'), ['--order-by']);
    assert.deepEqual(await complete('fleetls', 'ls', '--order-by', ''), ['name', 'size', 'modified']);
    assert.deepEqual((await complete('fleetls', 'pki', '')).slice(0, 3), ['init', 'issue', 'client']);
    assert.deepEqual(await complete('fleetls', 'pki', 'issue', '--d'), ['--dir', '--days', '--deadline-ms']);
    assert.deepEqual(await complete('fleetls', '--inventory', 'f.yaml', 'tr'), ['tree']);
  });

  it('zsh loads its completion', async () => {
    const file = join(root, 'usr/share/zsh/vendor-completions/_fleetls');
    assert.match(readFileSync(file, 'utf8'), /^#compdef fleetls\n/);
    const r = await run('zsh', ['-n', file]);
    assert.equal(r.code, 0, r.stderr);
    // Loaded by compinit from a directory on fpath, as zsh finds vendor completions.
    const home = join(tmp, 'zhome');
    mkdirSync(home, { recursive: true });
    const loaded = await run(
      'zsh',
      [
        '-f',
        '-c',
        `fpath=(${join(root, 'usr/share/zsh/vendor-completions')} $fpath); autoload -Uz compinit; compinit -u -d ${home}/dump; print -r -- $_comps[fleetls] $_comps[fleetls-agent]`,
      ],
      { env: { ...process.env, HOME: home } },
    );
    assert.equal(loaded.code, 0, loaded.stderr);
    assert.equal(loaded.stdout.trim(), '_fleetls _fleetls-agent');
  });

  it('fish completes verbs, flags and a flag’s choices', async () => {
    const file = join(root, 'usr/share/fish/vendor_completions.d/fleetls.fish');
    const complete = async (line: string) => {
      const r = await run('fish', ['--no-config', '-c', `source ${file}; complete -C '${line}'`]);
      assert.equal(r.code, 0, r.stderr);
      return r.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t')[0]);
    };
    assert.ok((await complete('fleetls ')).includes('ls'));
    assert.ok((await complete('fleetls ls --ord')).includes('--order-by'));
    assert.deepEqual((await complete('fleetls ls --order-by ')).sort(), ['modified', 'name', 'size']);
  });
});
