// Done when: following next_cursor from the first page of list_files and of list_directory
// lists every entry exactly once, over several hosts, agents and SSH mixed: two agents and
// one SSH host (a real sshd) serving the same tree, a gateway with a small answer budget,
// and the same calls answered whole by a gateway with a large one.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { treeEntryPaths } from '@fleetls/gateway/testing';
import { makeTree, range, type TreeSpec } from '@fleetls/testkit';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type AgentProcess, startAgent } from '../helpers/agent-process.js';
import { stdioClient } from '../helpers/gateway-process.js';
import { type Sshd, sshInventory, startSshd } from '../helpers/sshd.js';

type Json = Record<string, unknown>;

/** A page's rows with their paths: list_directory's name their directory by index in `dirs`. */
const rowsOf = (a: Json, rowsKey: string): Json[] =>
  rowsKey === 'entries'
    ? treeEntryPaths(a as { dirs: string[]; entries: { name: string; dir?: number }[] })
    : (a[rowsKey] as Json[]);

/** 1,400 entries: directories of files at three levels, names of every length, a symlink. */
function pagedTree(): TreeSpec {
  const files = [];
  for (let a = 0; a < 6; a++) {
    for (let b = 0; b < 8; b++) {
      const d = `d${a}/sub-${b}${'x'.repeat(b * 3)}`;
      files.push(
        ...range(
          28,
          (c) => `${d}/f${c}-${'n'.repeat(c % 9)}.txt`,
          (c) => 'x'.repeat(c),
        ),
      );
    }
  }
  return [...files, ['link', { link: 'd0' }]];
}

async function gateway(inventory: string, maxAnswerBytes: number): Promise<Client> {
  const max = String(maxAnswerBytes);
  const args = ['--inventory', inventory, '--max-answer-bytes', max, '--max-answer-tokens', max];
  return (await stdioClient('paging-test', {}, { args })).client;
}

async function call(client: Client, name: string, args: Json): Promise<Json> {
  const res = await client.callTool({ name, arguments: args });
  assert.ok(!res.isError, `${name} ${JSON.stringify(args)} failed: ${JSON.stringify(res.content)}`);
  return res.structuredContent as Json;
}

/** Every page from the first, following next_cursor; the rows of each as `host:path:type`. */
async function allPages(client: Client, name: string, args: Json, rowsKey: string): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const a = await call(client, name, { ...args, ...(cursor ? { cursor } : {}) });
    pages.push(rowsOf(a, rowsKey).map((r) => `${r.host}:${r.path}:${r.type ?? 'file'}`));
    cursor = a.next_cursor as string | undefined;
    assert.ok(pages.length < 500, 'paging ends');
  } while (cursor !== undefined);
  return pages;
}

describe('following next_cursor lists every entry exactly once, agents and SSH mixed', () => {
  let sshd: Sshd;
  const agents: AgentProcess[] = [];
  let paged: Client;
  let whole: Client;
  let root: string;
  const hosts = 'agent-1,viassh,agent-2';

  before(async () => {
    sshd = await startSshd();
    root = makeTree(join(sshd.dir, 'paged'), pagedTree(), { uid: sshd.uid, gid: sshd.gid });
    // Started one by one, so `after` stops every agent that did start.
    for (let i = 0; i < 2; i++) agents.push(await startAgent({ allow: [root], uid: sshd.uid, gid: sshd.gid }));
    const inventory = join(sshd.dir, 'paging.yaml');
    const ssh = sshInventory(sshd);
    writeFileSync(
      inventory,
      [
        'hosts:',
        `  agent-1: { agent: "${agents[0].address}" }`,
        `  viassh: { ssh: ${ssh} }`,
        `  agent-2: { agent: "${agents[1].address}" }`,
        'agent_tls: insecure',
        '',
      ].join('\n'),
    );
    [paged, whole] = await Promise.all([gateway(inventory, 8192), gateway(inventory, 4 * 1024 * 1024)]);
  });

  after(async () => {
    await Promise.all([paged?.close(), whole?.close()]);
    await Promise.all(agents.map((a) => a.stop()));
    await sshd?.stop();
  });

  it('list_directory', async () => {
    const args = { host: hosts, path: root, depth: 3, max_items_per_dir: 1000 };
    const all = await call(whole, 'list_directory', args);
    assert.equal(all.next_cursor, undefined);
    const want = rowsOf(all, 'entries').map((r) => `${r.host}:${r.path}:${r.type ?? 'file'}`);
    assert.equal(want.length, 3 * (6 + 6 * 8 + 6 * 8 * 28 + 1));
    const pages = await allPages(paged, 'list_directory', args, 'entries');
    assert.ok(pages.length > 10, `${pages.length} pages`);
    const got = pages.flat();
    assert.equal(new Set(got).size, got.length, 'no entry twice');
    assert.deepEqual(got, want);
    for (const h of ['agent-1', 'viassh', 'agent-2'])
      assert.ok(
        got.some((r) => r.startsWith(`${h}:`)),
        h,
      );
  });

  it('list_files', async () => {
    for (const order_by of ['name', 'size']) {
      const args = { host: hosts, path: root, max_depth: 3, type: 'any', order_by, limit: 5000 };
      const all = await call(whole, 'list_files', args);
      assert.equal(all.next_cursor, undefined);
      const want = (all.items as Json[]).map((r) => `${r.host}:${r.path}:${r.type ?? 'file'}`);
      assert.equal(want.length, all.total);
      assert.equal(want.length, 3 * (6 + 6 * 8 + 6 * 8 * 28 + 1));
      const pages = await allPages(paged, 'list_files', args, 'items');
      assert.ok(pages.length > 10, `${pages.length} pages`);
      const got = pages.flat();
      assert.equal(new Set(got).size, got.length, 'no entry twice');
      assert.deepEqual(got, want, order_by);
    }
  });
});
