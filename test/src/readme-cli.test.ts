// The README's CLI synopsis names every flag each command takes, and only those: a flag
// added to a tool's CLI face (--cursor on diff and du, the find-like filters on ls) shows
// up where a reader looks for it.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { TOOLS, toolFlags } from '@fleetls/gateway';
import { REPO_ROOT } from './helpers/agent-process.js';

/** `fleetls CMD …` and its indented continuation lines, from the README's CLI block. */
function synopsis(readme: string): Map<string, string> {
  const block = readme.split('## The CLI')[1]?.split('```')[1] ?? '';
  const out = new Map<string, string>();
  let current: string | undefined;
  for (const line of block.split('\n')) {
    const head = /^fleetls (\S+)/.exec(line);
    if (head) {
      current = head[1];
      out.set(current, line);
    } else if (current && /^\s/.test(line)) out.set(current, `${out.get(current)} ${line}`);
    else current = undefined;
  }
  return out;
}

describe('README CLI synopsis', () => {
  const entries = synopsis(fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8'));

  for (const tool of TOOLS) {
    const cli = tool.cli;
    if (!cli) continue;
    it(`fleetls ${cli.command} lists exactly the flags ${tool.name} takes`, () => {
      const entry = entries.get(cli.command);
      assert.ok(entry, `no synopsis line for fleetls ${cli.command}`);
      const flags = new Set(toolFlags(tool).map(({ option }) => option.long));
      const named = new Set([...entry.matchAll(/--[a-z][a-z-]*/g)].map((m) => m[0]));
      named.delete('--json');
      assert.deepEqual(
        [...flags].filter((f) => f && !named.has(f)),
        [],
        `missing from fleetls ${cli.command}`,
      );
      assert.deepEqual(
        [...named].filter((f) => !flags.has(f)),
        [],
        `not flags of ${cli.command}`,
      );
    });
  }
});
