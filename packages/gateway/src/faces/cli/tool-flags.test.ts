import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Command } from 'commander';
import { findTool, TOOLS } from '../../tools/registry.js';
import { toolArgs, toolFlags } from './tool-flags.js';

/** Parses `argv` with a tool's derived flags, as its subcommand does. */
function parse(name: string, argv: string[]) {
  const tool = findTool(name);
  assert.ok(tool?.cli);
  const cmd = new Command(tool.cli.command).argument(tool.cli.argument.syntax).exitOverride();
  for (const { option } of toolFlags(tool)) cmd.addOption(option);
  cmd.parse(argv, { from: 'user' });
  return toolArgs(tool, cmd.args[0], cmd.opts());
}

describe('CLI flags derived from the tool declarations', () => {
  it('give every argument of a tool with a CLI face a flag, but the positional ones and those it omits', () => {
    for (const tool of TOOLS) {
      if (!tool.cli) continue;
      const flags = new Set(toolFlags(tool).map((f) => f.key));
      for (const key of Object.keys(tool.input)) {
        if (['host', 'path'].includes(key) || tool.cli.omits?.includes(key)) continue;
        const on = (tool.cli.switches ?? []).some((s) => key in s.sets);
        assert.ok(flags.has(key) || on, `${tool.name}.${key} has no flag`);
      }
    }
  });

  it('map flags to arguments: ints, lists, switches and the CLI defaults', () => {
    assert.deepEqual(parse('list_files', ['web-*:/var', '--max-depth', '2', '--desc', '--min-size', '1G']), {
      host: 'web-*',
      path: '/var',
      type: 'any',
      max_depth: 2,
      min_size: '1G',
      sort: 'descending',
    });
    assert.deepEqual(parse('diff_directory', ['/etc', '--compare', 'size, mode']), {
      host: 'localhost',
      path: '/etc',
      compare: ['size', 'mode'],
    });
    assert.deepEqual(parse('disk_usage', ['/var', '--cross-file-systems']), {
      host: 'localhost',
      path: '/var',
      one_file_system: false,
    });
    assert.deepEqual(parse('list_hosts', []), {});
    assert.deepEqual(parse('list_hosts', ['@web', '--check']), { host: '@web', check: true });
  });

  it('read the help from the schema: description, default and bounds', () => {
    const depth = toolFlags(findTool('list_directory') as never).find((f) => f.key === 'depth');
    assert.match(depth?.option.description ?? '', /\(default 2; 1-\d+\)$/);
    // ls follows the pages (faces/cli/follow.ts): its --limit says so in place of the MCP default.
    const limit = toolFlags(findTool('list_files') as never).find((f) => f.key === 'limit');
    assert.equal(limit?.option.description, 'rows per page (default: every row, fetched a page at a time; 1-5000)');
  });
});
