// One plan per call (issue 34 ask 4, issue 37): a call on a face that keeps scans is planned
// once, whether it goes on as a scan or is collected whole (a start_index page, a cursor of
// the tool's own); its plan was made twice before, and with it the pattern compiled twice.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { resolveGatewayOptions } from '../fleet/options.js';
import { createScanRegistry } from '../scans/scan-registry.js';
import { dir, FakeFleet, file, MemoryBackend } from '../testing/fake-fleet.js';
import { toolContext } from '../testing/tool-calls.js';
import { listFilesTool } from './list-files/index.js';
import { runTool } from './run-tool.js';
import type { AnyTool } from './tool.js';

const tree = () => dir({ r: dir({ 'a.log': file(1), 'b.log': file(2), c: dir({ 'd.log': file(3) }) }) });

test('a call is planned once, as a scan or collected whole, in either order', async () => {
  const fleet = new FakeFleet({ a: new MemoryBackend(tree()), b: new MemoryBackend(tree()) });
  const scans = createScanRegistry(resolveGatewayOptions({}), pino({ level: 'silent' }));
  let plans = 0;
  const counted = {
    ...listFilesTool,
    plan: (args: never, ctx: never) => {
      plans++;
      return listFilesTool.plan(args, ctx);
    },
  } as unknown as AnyTool;
  const ctx = { ...toolContext(fleet, {}), scans, principal: 'p' };
  try {
    for (const args of [
      { host: 'all', path: '/r', max_depth: 1, pattern: '*.log' },
      { host: 'all', path: '/r', max_depth: 1, pattern: '*.log', order_by: 'size' },
      // Not a scan: a page from start_index.
      { host: 'all', path: '/r', max_depth: 1, pattern: '*.log', start_index: 1 },
      { host: 'all', path: '/r', max_depth: 1, pattern: '*.log', order_by: 'size', start_index: 1 },
    ]) {
      plans = 0;
      const r = await runTool(counted, args, ctx);
      assert.ok(
        r.hosts.every((h) => h.status === 'ok'),
        JSON.stringify(r.hosts),
      );
      assert.equal(plans, 1, JSON.stringify(args));
    }
  } finally {
    scans.close();
  }
});
