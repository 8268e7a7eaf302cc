// The space treemap (d3-hierarchy's squarified layout, drawn as plain SVG): one rectangle per
// directory, nested a level, the rest of a directory (its files, the directories below the top
// N) in grey. A rectangle is focusable; click or Enter opens it, hovering or focusing tells
// its exact bytes and per-host values. A lower bound is hatched and marked ≥.
import { type HierarchyRectangularNode, hierarchy, treemap, treemapSquarify } from 'd3-hierarchy';
import type { SpaceNode } from './space-model.js';

const SVG = 'http://www.w3.org/2000/svg';
// Dark enough for white 11px labels (WCAG AA on each).
const COLOURS = ['#0b5fcc', '#1a7f37', '#8a5a00', '#7a3fd0', '#b3246e', '#c62828', '#11707a', '#5a6270'];

export interface TreemapHandlers {
  open(node: SpaceNode): void;
  hover(node: SpaceNode | undefined, at?: { x: number; y: number }): void;
}

function human(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

export function sizeLabel(node: SpaceNode): string {
  return `${node.partial ? '≥ ' : ''}${human(node.size)}`;
}

function el<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number>,
): SVGElementTagNameMap[K] {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

/** The hatch pattern a lower bound is drawn with. */
function hatchDefs(): SVGDefsElement {
  const defs = el('defs', {});
  const hatch = el('pattern', {
    id: 'lower-bound',
    width: 6,
    height: 6,
    patternUnits: 'userSpaceOnUse',
    patternTransform: 'rotate(45)',
  });
  hatch.append(el('rect', { width: 3, height: 6, fill: '#ffffff', 'fill-opacity': 0.35 }));
  defs.append(hatch);
  return defs;
}

/** The squarified layout of two levels: the directories of the path, and theirs. */
function layout(root: SpaceNode, width: number, height: number): HierarchyRectangularNode<SpaceNode> {
  // A leaf's area is its size.
  const tree = hierarchy<SpaceNode>(root, (d) =>
    d === root || (!d.rest && d.children.length > 0 && !d.path.includes('/')) ? d.children : undefined,
  );
  tree.eachAfter((n) => {
    (n as { value?: number }).value = n.children ? n.children.reduce((s, c) => s + (c.value ?? 0), 0) : n.data.size;
  });
  tree.sort((a, b) => (b.value ?? 0) - (a.value ?? 0));
  return treemap<SpaceNode>()
    .tile(treemapSquarify)
    .size([width, height])
    .paddingTop((d) => (d.depth === 1 && d.children ? 16 : 0))
    .paddingInner(1)(tree);
}

/** One rectangle: its fill, hatching, label and role. */
function nodeShape(n: HierarchyRectangularNode<SpaceNode>, colour: string): SVGGElement {
  const w = n.x1 - n.x0;
  const hgt = n.y1 - n.y0;
  const d = n.data;
  const g = el('g', {
    class: `node${d.rest ? ' rest' : ''}`,
    transform: `translate(${n.x0},${n.y0})`,
    [d.rest ? 'data-rest-of' : 'data-path']: d.path,
  });
  if (!d.rest) {
    g.setAttribute('tabindex', '0');
    g.setAttribute('role', 'link');
  } else g.setAttribute('role', 'img');
  g.setAttribute('aria-label', `${d.rest ? `${d.name} of ${d.path || '.'}` : d.path}: ${sizeLabel(d)}`);
  g.append(
    el('rect', { width: w, height: hgt, fill: colour, 'fill-opacity': d.rest ? 0.35 : n.depth === 1 ? 0.75 : 1 }),
  );
  if (d.partial) g.append(el('rect', { width: w, height: hgt, fill: 'url(#lower-bound)', class: 'partial' }));
  if (w > 46 && hgt > 14) {
    const t = el('text', { x: 4, y: 12 });
    const label = `${d.name} ${sizeLabel(d)}`;
    t.textContent = label.length * 6.2 > w ? `${label.slice(0, Math.max(1, Math.floor(w / 6.2) - 1))}…` : label;
    g.append(t);
  }
  return g;
}

/** Hover and focus tell the node; click (and Enter or space) opens it. */
function bindNode(g: SVGGElement, n: HierarchyRectangularNode<SpaceNode>, on: TreemapHandlers): void {
  const d = n.data;
  const point = (ev: MouseEvent | FocusEvent) =>
    ev instanceof MouseEvent
      ? { x: ev.clientX, y: ev.clientY }
      : (() => {
          const r = g.getBoundingClientRect();
          return { x: r.left + 8, y: r.top + 8 };
        })();
  g.addEventListener('mousemove', (ev) => {
    ev.stopPropagation();
    on.hover(d, point(ev));
  });
  g.addEventListener('focus', (ev) => on.hover(d, point(ev)));
  g.addEventListener('blur', () => on.hover(undefined));
  // The rest of a directory drawn inside it opens that directory, as a click on its header does.
  const target = d.rest ? (n.depth > 1 ? n.parent?.data : undefined) : d;
  if (target) {
    g.addEventListener('click', (ev) => {
      ev.stopPropagation();
      on.open(target);
    });
  }
  if (!d.rest) {
    g.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter' || ev.key === ' ') {
        ev.preventDefault();
        on.open(d);
      }
    });
  }
}

export function drawTreemap(svg: SVGSVGElement, root: SpaceNode, on: TreemapHandlers, title: string): void {
  const box = svg.getBoundingClientRect();
  const width = Math.max(200, Math.round(box.width || 900));
  const height = Math.max(160, Math.round(box.height || 440));
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('role', 'group');
  svg.setAttribute('aria-label', title);
  svg.replaceChildren();
  svg.append(hatchDefs());
  for (const [i, top] of (layout(root, width, height).children ?? []).entries()) {
    const colour = top.data.rest ? '#8c959f' : COLOURS[i % COLOURS.length];
    for (const n of top.descendants()) {
      if (n.x1 - n.x0 < 1 || n.y1 - n.y0 < 1) continue;
      const g = nodeShape(n, colour);
      bindNode(g, n, on);
      svg.append(g);
    }
  }
  svg.addEventListener('mouseleave', () => on.hover(undefined));
}

/** The hover card: name, exact bytes, each host's value, and a lower bound said in words. */
export function tipLines(node: SpaceNode, base: string): string[] {
  const lines = [
    node.rest
      ? `${node.name} in ${base}${node.path ? `/${node.path}` : ''}`
      : `${base.replace(/\/$/, '')}/${node.path}`,
    `${node.partial ? 'at least ' : ''}${node.size.toLocaleString('en-US')} bytes (${sizeLabel(node)})`,
  ];
  for (const p of node.perHost)
    lines.push(`${p.host}: ${p.partial ? '≥ ' : ''}${p.size.toLocaleString('en-US')} bytes`);
  if (node.partial) lines.push('a lower bound: part of it could not be read in time, or was unreadable');
  return lines;
}
