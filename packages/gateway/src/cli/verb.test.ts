import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Command } from 'commander';
import { verbOf } from './run.js';

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
