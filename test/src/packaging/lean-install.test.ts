// The main `npm ci` installs the product and its tests only: the bench's peer MCP servers
// and their browser stacks live in bench/peers, with their own lockfile.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT } from '../helpers/agent-process.js';

const PEERS = ['@wonderwhy-er/desktop-commander', '@modelcontextprotocol/server-filesystem', 'puppeteer', 'sharp'];

function lockedPackages(lockfile: string): string[] {
  const lock = JSON.parse(readFileSync(join(REPO_ROOT, lockfile), 'utf8')) as { packages: Record<string, unknown> };
  return Object.keys(lock.packages).map((p) => p.replace(/^.*node_modules\//, ''));
}

describe('lean main install', () => {
  it('the root lockfile holds none of the peers; bench/peers/package-lock.json holds them', () => {
    const main = lockedPackages('package-lock.json');
    assert.deepEqual(
      PEERS.filter((p) => main.includes(p)),
      [],
    );
    const peers = lockedPackages('bench/peers/package-lock.json');
    assert.ok(
      peers.includes('@wonderwhy-er/desktop-commander') && peers.includes('@modelcontextprotocol/server-filesystem'),
    );
  });
});
