// Paths in the URL and the breadcrumbs: host paths as strings, joined and split on '/'.
import { h } from './dom.js';

const strict = new TextDecoder('utf-8', { fatal: true });

/** A child's path from its raw name bytes (base64), or undefined when the name is not UTF-8 (no path string names it). */
export function childPath(dir: string, b64: string | undefined): string | undefined {
  if (!b64) return dir;
  let rel: string;
  try {
    rel = strict.decode(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
  return `${dir.replace(/\/+$/, '')}/${rel}`;
}

export function parentPath(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  const i = trimmed.lastIndexOf('/');
  return i <= 0 ? '/' : trimmed.slice(0, i);
}

/** `/ › srv › data`: each level a link made by `href`, the last one the current page. */
export function breadcrumbs(path: string, href: (p: string) => string, label = 'Path'): HTMLElement {
  const parts = path.split('/').filter(Boolean);
  const nav = h('nav', { class: 'crumbs', 'aria-label': label });
  const items: [string, string][] = [['/', '/']];
  let acc = '';
  for (const part of parts) {
    acc += `/${part}`;
    items.push([part, acc]);
  }
  items.forEach(([text, p], i) => {
    if (i > 0) nav.append(h('span', { 'aria-hidden': 'true', class: 'muted' }, '›'));
    nav.append(i === items.length - 1 ? h('span', { 'aria-current': 'page' }, text) : h('a', { href: href(p) }, text));
  });
  if (items.length > 1)
    nav.append(h('a', { href: href(parentPath(path)), 'data-up': '', class: 'muted', title: 'Backspace' }, '(up)'));
  return nav;
}
