// The Grafana dashboard charts only metrics the gateway and the agent actually register.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { createAgentMetrics } from '@fleetls/agent';
import { createGatewayMetrics } from '@fleetls/gateway';
import { REPO_ROOT } from '../helpers/agent-process.js';

const DASHBOARD = path.join(REPO_ROOT, 'deploy/grafana/fleetls-dashboard.json');

describe('deploy/grafana dashboard', () => {
  it('names only registered metrics', async () => {
    const dashboard = JSON.parse(fs.readFileSync(DASHBOARD, 'utf8')) as {
      panels: { targets?: { expr: string }[] }[];
    };
    const exprs = dashboard.panels.flatMap((p) => p.targets ?? []).map((t) => t.expr);
    assert.ok(exprs.length > 10);
    const registered = new Set<string>();
    for (const { registry } of [createGatewayMetrics(), createAgentMetrics()]) {
      for (const m of await registry.getMetricsAsJSON()) registered.add(m.name);
    }
    for (const expr of exprs) {
      for (const [name] of expr.matchAll(/\b(?:fleetls|process)_[a-z_]+/g)) {
        const family = name.replace(/_(bucket|sum|count)$/, '');
        assert.ok(registered.has(family), `${family} (in ${expr}) is registered`);
      }
    }
  });
});
