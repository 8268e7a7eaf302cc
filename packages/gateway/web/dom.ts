// A few DOM helpers: elements are built with textContent only (names never become markup).
type Child = Node | string | number | undefined | null | false;
type Attrs = Record<string, string | number | boolean | undefined | ((ev: Event) => void)>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (typeof v === 'function') el.addEventListener(k.replace(/^on/, ''), v);
    else if (k === 'class') el.className = String(v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children)
    if (c !== undefined && c !== null && c !== false) el.append(typeof c === 'number' ? String(c) : c);
  return el;
}

export const $ = <T extends Element = HTMLElement>(sel: string, root: ParentNode = document): T =>
  root.querySelector(sel) as T;

/** A view's heading and its content, replacing what the section held. */
export function fill(section: HTMLElement, ...children: Child[]): void {
  section.replaceChildren();
  for (const c of children)
    if (c !== undefined && c !== null && c !== false) section.append(typeof c === 'number' ? String(c) : c);
}

/** "12 s ago", "3 min ago", from an ISO time. */
export function ago(iso: string | undefined, now = Date.now()): string {
  if (!iso) return 'never';
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  return `${Math.floor(s / 3600)} h ago`;
}
