// A small kustomize for the manifests of deploy/kubernetes, run offline: `resources`
// (files and directories holding a kustomization.yaml), `namespace`, `labels` (metadata
// only) and `images` (newName/newTag). Anything else in a kustomization is refused by
// name, so a manifest never relies on a field this renderer would silently skip.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments, parse as parseYaml } from 'yaml';

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; [k: string]: unknown };
  [k: string]: unknown;
}

const KNOWN = new Set(['apiVersion', 'kind', 'namespace', 'labels', 'resources', 'images']);
/** Kinds without a namespace, among those fleetls ships. */
const CLUSTER_SCOPED = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding']);

interface Kustomization {
  namespace?: string;
  labels?: { pairs: Record<string, string>; includeSelectors?: boolean; includeTemplates?: boolean }[];
  resources?: string[];
  images?: { name: string; newName?: string; newTag?: string }[];
}

function readDocs(file: string): Manifest[] {
  return parseAllDocuments(readFileSync(file, 'utf8')).flatMap((doc) => {
    if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0]?.message}`);
    const value = doc.toJS() as Manifest | null;
    return value === null ? [] : [value];
  });
}

/** Every container of a workload's pod template (or a Pod). */
export function containersOf(m: Manifest): { image: string; [k: string]: unknown }[] {
  const spec = (m.spec ?? {}) as { template?: { spec?: PodSpec } } & PodSpec;
  const pod = spec.template?.spec ?? (m.kind === 'Pod' ? spec : undefined);
  return [...(pod?.containers ?? []), ...(pod?.initContainers ?? [])];
}
type PodSpec = { containers?: { image: string }[]; initContainers?: { image: string }[] };

/** Renders the kustomization in `dir` into its manifests, in resource order. */
export function kustomize(dir: string): Manifest[] {
  const file = join(dir, 'kustomization.yaml');
  const k = parseYaml(readFileSync(file, 'utf8')) as Kustomization & Record<string, unknown>;
  const unknown = Object.keys(k).filter((key) => !KNOWN.has(key));
  if (unknown.length > 0) throw new Error(`${file}: not supported by this renderer: ${unknown.join(', ')}`);
  const out: Manifest[] = [];
  for (const res of k.resources ?? []) {
    const path = join(dir, res);
    if (!existsSync(path)) throw new Error(`${file}: resource ${res} does not exist`);
    out.push(...(statSync(path).isDirectory() ? kustomize(path) : readDocs(path)));
  }
  for (const m of out) {
    if (k.namespace && !CLUSTER_SCOPED.has(m.kind)) m.metadata.namespace = k.namespace;
    for (const l of k.labels ?? []) {
      if (l.includeSelectors || l.includeTemplates) throw new Error(`${file}: labels with include* are not supported`);
      m.metadata.labels = { ...m.metadata.labels, ...l.pairs };
    }
    for (const c of containersOf(m)) {
      const [name, tag] = c.image.split(':');
      const rule = (k.images ?? []).find((i) => i.name === name);
      if (rule) c.image = `${rule.newName ?? name}${rule.newTag ? `:${rule.newTag}` : tag ? `:${tag}` : ''}`;
    }
  }
  return out;
}
