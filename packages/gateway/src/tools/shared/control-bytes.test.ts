import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FleetError, type HostBackend } from '@fleetls/core';
import { dir, FakeFleet, file, MemoryBackend } from '../../testing/fake-fleet.js';
import { toolContext } from '../../testing/tool-calls.js';
import { TOOLS } from '../registry.js';
import { runTool } from '../run-tool.js';
import { inputJsonSchema } from '../schemas.js';
import { controlByteMessage, findControlBytes } from './control-bytes.js';

test('findControlBytes: every C0 character, anywhere in the arguments; DEL and the rest pass', () => {
  for (let c = 0; c < 0x20; c++) {
    const ch = String.fromCharCode(c);
    assert.deepEqual(findControlBytes({ path: `/a${ch}b` }), [
      { at: 'path', char: `U+${c.toString(16).toUpperCase().padStart(4, '0')}`, index: 2 },
    ]);
  }
  assert.deepEqual(findControlBytes({ path: '/a\u007fb/é/😀', n: 3, t: true, u: null }), []);
  assert.deepEqual(findControlBytes({ compare: ['ok', 'x\ny'], deep: { owner: '\u0000' } }), [
    { at: 'compare[1]', char: 'U+000A', index: 1 },
    { at: 'deep.owner', char: 'U+0000', index: 0 },
  ]);
  assert.equal(
    controlByteMessage({ at: 'name', char: 'U+0000', index: 1 }),
    'name must not contain control characters (U+0000–U+001F): found U+0000 at index 1',
  );
});

/** Counts every call a host is asked, whatever the method. */
function counted(b: HostBackend): HostBackend & { asked: number } {
  const c = {
    via: b.via,
    asked: 0,
    walk(...a: Parameters<HostBackend['walk']>) {
      c.asked++;
      return b.walk(...a);
    },
    stat(...a: Parameters<HostBackend['stat']>) {
      c.asked++;
      return b.stat(...a);
    },
    probe(...a: Parameters<HostBackend['probe']>) {
      c.asked++;
      return b.probe(...a);
    },
    close: () => b.close(),
  };
  return c;
}

/** The arguments of a tool whose JSON Schema admits a string. */
function stringArgs(input: Parameters<typeof inputJsonSchema>[0]): string[] {
  const props = (inputJsonSchema(input).properties ?? {}) as Record<
    string,
    { type?: string; anyOf?: { type?: string }[] }
  >;
  return Object.entries(props)
    .filter(([, p]) => p.type === 'string' || p.anyOf?.some((a) => a.type === 'string'))
    .map(([k]) => k);
}

test('every string argument of every tool refuses a control character, naming it, before any host is asked', async () => {
  const backend = counted(new MemoryBackend(dir({ srv: dir({ 'a.log': file(1) }) })));
  const fleet = new FakeFleet({ alpha: backend });
  const ctx = toolContext(fleet);
  let checked = 0;
  for (const tool of TOOLS) {
    for (const arg of stringArgs(tool.input)) {
      for (const bad of ['a\u0000b', '\u001b[31m', 'x\ny']) {
        const args: Record<string, unknown> = { host: 'alpha', path: '/srv', [arg]: bad };
        await assert.rejects(
          runTool(tool, args, ctx),
          (err: unknown) => {
            const fe = FleetError.from(err);
            assert.equal(fe.code, 'invalid_argument', `${tool.name} ${arg}`);
            assert.match(fe.message, new RegExp(`\\b${arg} must not contain control characters`), tool.name);
            return true;
          },
          `${tool.name} ${arg}=${JSON.stringify(bad)}`,
        );
        checked++;
      }
    }
  }
  assert.equal(backend.asked, 0, 'no host was asked');
  // host and path on every listing tool, and pattern, name, owner, group, cursor among them.
  assert.ok(checked >= 3 * 20, `${checked} cases`);
  // The same arguments without the control character reach the host.
  await runTool(TOOLS.find((t) => t.name === 'list_files')!, { host: 'alpha', path: '/srv', name: 'a.log' }, ctx);
  assert.ok(backend.asked > 0);
});
