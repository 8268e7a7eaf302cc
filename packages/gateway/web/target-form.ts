// The hosts + path + levels form that heads Browse, Space and Compare: one form, so the three
// views name and submit their target the same way (empty host means all, empty path means /).
import type { ViewContext } from './context.js';
import { h } from './dom.js';

export interface TargetForm {
  /** The view's id prefix: `browse` gives inputs #browse-host, #browse-path, #browse-depth. */
  id: string;
  state: Record<string, string | undefined>;
  host: string;
  path: string;
  /** The levels control (a select or a number input) with id `${id}-depth`. */
  depth: HTMLInputElement | HTMLSelectElement;
  /** The view's default depth, left out of the URL. */
  defaultDepth: string;
  submit: string;
  /** Controls after the submit button. */
  extra?: Node[];
}

export function targetForm(ctx: ViewContext, f: TargetForm): HTMLFormElement {
  const hostInput = h('input', { id: `${f.id}-host`, value: f.host, size: 22, spellcheck: 'false' });
  const pathInput = h('input', { id: `${f.id}-path`, value: f.path, size: 40, spellcheck: 'false' });
  return h(
    'form',
    {
      class: 'bar',
      onsubmit: (ev: Event) => {
        ev.preventDefault();
        ctx.navigate({
          ...f.state,
          host: hostInput.value.trim() || 'all',
          path: pathInput.value.trim() || '/',
          depth: f.depth.value === f.defaultDepth ? undefined : f.depth.value,
        });
      },
    },
    h('label', { for: `${f.id}-host` }, 'Hosts', hostInput),
    h('label', { for: `${f.id}-path` }, 'Path', pathInput),
    h('label', { for: `${f.id}-depth` }, 'Levels', f.depth),
    h('button', { type: 'submit', class: 'primary' }, f.submit),
    ...(f.extra ?? []),
  );
}
