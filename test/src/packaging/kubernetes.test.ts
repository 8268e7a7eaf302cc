// deploy/kubernetes, validated offline (no cluster here): the base rendered by a small
// kustomize, every object checked against the Kubernetes API schemas of kubernetes-models,
// then what fleetls relies on: agents read the node through a read-only hostPath with
// path_rootfs, no pod mounts a service-account token, two or more gateways with probes,
// only gateways reach agents. The ConfigMaps parse with the programs' own parsers. The
// container files are checked against what `npm run package` writes (no engine here to
// build them).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parseAgentConfig } from '@fleetls/agent';
import { parseInventory } from '@fleetls/gateway';
import { REPO_ROOT } from '../helpers/agent-process.js';
import { containersOf, kustomize, type Manifest } from '../helpers/kustomize.js';

const BASE = join(REPO_ROOT, 'deploy/kubernetes/base');

/** The kubernetes-models class for an object's apiVersion and kind. */
async function model(m: Manifest): Promise<new (data: unknown) => { validate(): void }> {
  const [group, version] = m.apiVersion.includes('/') ? m.apiVersion.split('/') : ['', m.apiVersion];
  const mod = await import(`kubernetes-models/${group ? `${group}/` : ''}${version}/${m.kind}`);
  return mod[m.kind];
}

// biome-ignore lint/suspicious/noExplicitAny: manifests are free-form YAML, walked by the assertions below
type Obj = Record<string, any>;
const byKind = (docs: Manifest[], kind: string, name: string): Obj => {
  const m = docs.find((d) => d.kind === kind && d.metadata.name === name);
  assert.ok(m, `${kind}/${name} is in the base`);
  return m as Obj;
};
const podSpec = (m: Obj): Obj => m.spec.template.spec;
const matches = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([k, v]) => labels[k] === v);

describe('deploy/kubernetes base', () => {
  const docs = kustomize(BASE);
  const tmp = mkdtempSync(join(tmpdir(), 'fleetls-k8s-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('every object is valid against the Kubernetes API schemas', async () => {
    assert.ok(docs.length >= 10);
    for (const m of docs) {
      const Model = await model(m);
      assert.doesNotThrow(() => new Model(m).validate(), `${m.kind}/${m.metadata.name}`);
      if (m.kind !== 'Namespace') assert.equal(m.metadata.namespace, 'fleetls', `${m.kind}/${m.metadata.name}`);
    }
  });

  it('the schema check can fail', async () => {
    const bad = structuredClone(byKind(docs, 'Deployment', 'fleetls-gateway')) as Manifest;
    (bad as Obj).spec.replicas = 'two';
    const Model = await model(bad);
    assert.throws(() => new Model(bad).validate(), /replicas/);
  });

  it('no pod mounts a service-account token; images carry the release tag', () => {
    for (const m of docs.filter((d) => containersOf(d).length > 0)) {
      assert.equal(podSpec(m).automountServiceAccountToken, false, m.metadata.name);
      for (const c of containersOf(m)) assert.match(c.image, /^fleetls(-agent)?:\d+\.\d+\.\d+$/);
    }
  });

  it('the agent DaemonSet reads the node through a read-only hostPath, as its config says', () => {
    const ds = byKind(docs, 'DaemonSet', 'fleetls-agent');
    const spec = podSpec(ds);
    const host = spec.volumes.find((v: Obj) => v.hostPath);
    assert.deepEqual(host.hostPath, { path: '/', type: 'Directory' });
    const [agent] = spec.containers;
    const mount = agent.volumeMounts.find((v: Obj) => v.name === host.name);
    assert.equal(mount.readOnly, true);
    assert.equal(agent.securityContext.readOnlyRootFilesystem, true);
    assert.equal(agent.securityContext.allowPrivilegeEscalation, false);
    assert.deepEqual(agent.securityContext.capabilities.drop, ['ALL']);
    // The agent's own parser reads the ConfigMap's agent.yaml.
    const file = join(tmp, 'agent.yaml');
    writeFileSync(file, byKind(docs, 'ConfigMap', 'fleetls-agent').data['agent.yaml']);
    const config = parseAgentConfig(['--config', file]);
    assert.equal(config.pathRootfs, mount.mountPath);
    assert.deepEqual(config.allow, ['/var/log']);
    assert.equal(config.port, agent.ports[0].containerPort);
    assert.deepEqual(agent.args, ['--config', '/etc/fleetls/agent.yaml']);
  });

  it('agents on NATS: the commented keys parse, the node name is the host name, the key Secret is optional', () => {
    const ds = byKind(docs, 'DaemonSet', 'fleetls-agent');
    const spec = podSpec(ds);
    const [agent] = spec.containers;
    const name = agent.env.find((e: Obj) => e.name === 'FLEETLS_AGENT_NAME');
    assert.deepEqual(name.valueFrom, { fieldRef: { fieldPath: 'spec.nodeName' } });
    const nats = spec.volumes.find((v: Obj) => v.name === 'nats');
    assert.deepEqual(nats.secret, { secretName: 'fleetls-agent-nats', optional: true });
    assert.equal(agent.volumeMounts.find((v: Obj) => v.name === 'nats').mountPath, '/etc/fleetls/nats');
    // The ConfigMap's NATS lines, uncommented, are what the agent takes: TLS off loopback, the node's name.
    const text = byKind(docs, 'ConfigMap', 'fleetls-agent').data['agent.yaml'] as string;
    const file = join(tmp, 'agent-nats.yaml');
    writeFileSync(file, text.replace(/^# (connect|nats_creds|nats_tls):/gm, '$1:'));
    const config = parseAgentConfig(['--config', file], { FLEETLS_AGENT_NAME: 'node-7' });
    assert.deepEqual(config.nats?.servers, [
      'tls://nats-1.nats:4222',
      'tls://nats-2.nats:4222',
      'tls://nats-3.nats:4222',
    ]);
    assert.equal(config.nats?.name, 'node-7');
    assert.equal(config.nats?.creds, '/etc/fleetls/nats/agent.creds');
    assert.equal(config.nats?.tls?.ca, '/etc/fleetls/nats/ca.crt');
  });

  it("the gateways' inventory finds the agents through the headless Service, with the mounted certificates", () => {
    const dep = byKind(docs, 'Deployment', 'fleetls-gateway');
    const [gw] = podSpec(dep).containers;
    const at = gw.args.indexOf('--inventory');
    const path = gw.args[at + 1];
    const config = byKind(docs, 'ConfigMap', 'fleetls-gateway');
    const inv = parseInventory(config.data['fleetls.yaml'], { source: path });
    const svc = byKind(docs, 'Service', 'fleetls-agent');
    assert.deepEqual(inv.kubernetes, {
      service: `${svc.metadata.name}.${svc.metadata.namespace}.svc.cluster.local`,
      port: svc.spec.ports[0].port,
    });
    const tlsMount = gw.volumeMounts.find((m: Obj) => m.name === 'agent-tls').mountPath;
    assert.ok(typeof inv.agentTls === 'object' && inv.agentTls.ca.startsWith(`${tlsMount}/`));
  });

  it('the headless Service selects the agents on their gRPC port', () => {
    const svc = byKind(docs, 'Service', 'fleetls-agent');
    const ds = byKind(docs, 'DaemonSet', 'fleetls-agent');
    assert.equal(svc.spec.clusterIP, 'None');
    assert.ok(matches(svc.spec.selector, ds.spec.template.metadata.labels));
    assert.equal(svc.spec.ports[0].targetPort, 'grpc');
  });

  it('gateways: a Deployment of at least 2 with probes, an HPA from 2, a PDB, a Service', () => {
    const dep = byKind(docs, 'Deployment', 'fleetls-gateway');
    const labels = dep.spec.template.metadata.labels;
    assert.ok(dep.spec.replicas >= 2);
    const [gw] = podSpec(dep).containers;
    assert.equal(gw.readinessProbe.httpGet.path, '/readyz');
    assert.equal(gw.livenessProbe.httpGet.path, '/healthz');
    const hpa = byKind(docs, 'HorizontalPodAutoscaler', 'fleetls-gateway');
    assert.deepEqual(hpa.spec.scaleTargetRef, { apiVersion: 'apps/v1', kind: 'Deployment', name: 'fleetls-gateway' });
    assert.ok(hpa.spec.minReplicas >= 2 && hpa.spec.maxReplicas > hpa.spec.minReplicas);
    const pdb = byKind(docs, 'PodDisruptionBudget', 'fleetls-gateway');
    assert.ok(matches(pdb.spec.selector.matchLabels, labels));
    assert.ok(pdb.spec.minAvailable < dep.spec.replicas);
    const svc = byKind(docs, 'Service', 'fleetls-gateway');
    assert.ok(matches(svc.spec.selector, labels));
  });

  it('only gateways reach the agents', () => {
    const np = byKind(docs, 'NetworkPolicy', 'fleetls-agent');
    const ds = byKind(docs, 'DaemonSet', 'fleetls-agent');
    const gw = byKind(docs, 'Deployment', 'fleetls-gateway');
    assert.ok(matches(np.spec.podSelector.matchLabels, ds.spec.template.metadata.labels));
    assert.deepEqual(np.spec.policyTypes, ['Ingress']);
    assert.equal(np.spec.ingress.length, 1);
    const [rule] = np.spec.ingress;
    assert.equal(rule.from.length, 1);
    assert.ok(matches(rule.from[0].podSelector.matchLabels, gw.spec.template.metadata.labels));
    assert.equal(rule.from[0].namespaceSelector, undefined);
    assert.deepEqual(rule.ports, [{ protocol: 'TCP', port: 7443 }]);
  });

  it('the renderer refuses a kustomization field it does not implement', () => {
    writeFileSync(join(tmp, 'kustomization.yaml'), 'resources: []\npatches: []\n');
    assert.throws(() => kustomize(tmp), /not supported by this renderer: patches/);
  });
});

describe('deploy/container', () => {
  const PACKAGED = ['dist/fleetls-agent', 'dist/fleetls'];
  for (const [file, image] of [
    ['agent.Containerfile', 'fleetls-agent'],
    ['gateway.Containerfile', 'fleetls'],
  ] as const) {
    it(`${file}: runs the self-contained executable npm run package writes, with its native module, on a base without node, as a non-root user (static: no engine here)`, () => {
      const lines = readFileSync(join(REPO_ROOT, 'deploy/container', file), 'utf8')
        .split('\n')
        .filter((l) => l && !l.startsWith('#'));
      const instr = (name: string) =>
        lines.filter((l) => l.startsWith(`${name} `)).map((l) => l.slice(name.length + 1));
      assert.match(instr('FROM')[0] ?? '', /^docker\.io\/library\/debian:12-slim$/);
      const copies = instr('COPY').map((c) => c.split(' '));
      assert.equal(copies.length, 2);
      const [src, dest] = copies[0] as [string, string];
      assert.ok(PACKAGED.includes(src), src);
      // The native module beside it where the executable looks: <bin>/../lib/<name>/fsat.node.
      assert.deepEqual(copies[1], ['dist/fsat.node', `/usr/lib/${image}/fsat.node`]);
      const entry = JSON.parse(instr('ENTRYPOINT')[0] ?? '[]') as string[];
      assert.deepEqual(entry, [dest]);
      assert.equal(dest, `/usr/bin/${image}`);
      assert.match(instr('USER')[0] ?? '', /^[1-9]\d*:[1-9]\d*$/);
      // The image the base names is this one.
      const names = kustomize(BASE).flatMap((m) => containersOf(m).map((c) => c.image.split(':')[0]));
      assert.ok(names.includes(image));
    });
  }
});
