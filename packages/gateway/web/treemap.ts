// "Where did the space go": the recursive sizes under a path, host by host, as a treemap
// (d3-hierarchy's squarified layout, drawn as plain SVG).
import { hierarchy, treemap, treemapSquarify } from 'd3-hierarchy';

export interface SizeNode {
  name: string;
  size?: number;
  children?: SizeNode[];
}

const SVG = 'http://www.w3.org/2000/svg';
const COLOURS = ['#0969da', '#1a7f37', '#9a6700', '#8250df', '#bf3989', '#cf222e', '#1b7c83'];

function human(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${n.toFixed(i === 0 ? 0 : 1)} ${units[i]}`;
}

export function drawTreemap(svg: SVGSVGElement, hosts: SizeNode[]): void {
  const width = svg.width.baseVal.value;
  const height = svg.height.baseVal.value;
  svg.replaceChildren();
  const root = hierarchy<SizeNode>({ name: '', children: hosts })
    .sum((d) => (d.children ? 0 : Math.max(0, d.size ?? 0)))
    .sort((a, b) => (b.value ?? 0) - (a.value ?? 0));
  const laid = treemap<SizeNode>().tile(treemapSquarify).size([width, height]).paddingTop(16).paddingInner(1)(root);
  for (const node of laid.descendants()) {
    if (node.depth === 0) continue;
    const hostIndex = laid.children?.indexOf(node.depth === 1 ? node : (node.parent as typeof node)) ?? 0;
    const g = document.createElementNS(SVG, 'g');
    g.setAttribute('transform', `translate(${node.x0},${node.y0})`);
    const rect = document.createElementNS(SVG, 'rect');
    rect.setAttribute('width', String(Math.max(0, node.x1 - node.x0)));
    rect.setAttribute('height', String(Math.max(0, node.y1 - node.y0)));
    rect.setAttribute('fill', COLOURS[hostIndex % COLOURS.length]);
    rect.setAttribute('fill-opacity', node.depth === 1 ? '0.15' : '0.6');
    rect.setAttribute('data-name', node.data.name);
    const title = document.createElementNS(SVG, 'title');
    title.textContent = `${node.data.name}: ${human(node.value ?? 0)}`;
    rect.append(title);
    g.append(rect);
    if (node.x1 - node.x0 > 40 && node.y1 - node.y0 > 14) {
      const text = document.createElementNS(SVG, 'text');
      text.setAttribute('x', '3');
      text.setAttribute('y', '12');
      text.textContent = `${node.data.name} ${human(node.value ?? 0)}`;
      g.append(text);
    }
    svg.append(g);
  }
}
