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

export function targetForm(ctx: ViewContext, form: TargetForm): HTMLFormElement {
  const hostInput = h('input', { id: `${form.id}-host`, value: form.host, size: 22, spellcheck: 'false' });
  const pathInput = h('input', { id: `${form.id}-path`, value: form.path, size: 40, spellcheck: 'false' });
  return h(
    'form',
    {
      class: 'bar',
      onsubmit: (ev: Event) => {
        ev.preventDefault();
        ctx.navigate({
          ...form.state,
          host: hostInput.value.trim() || 'all',
          path: pathInput.value.trim() || '/',
          depth: form.depth.value === form.defaultDepth ? undefined : form.depth.value,
        });
      },
    },
    h('label', { for: `${form.id}-host` }, 'Hosts', hostInput),
    h('label', { for: `${form.id}-path` }, 'Path', pathInput),
    h('label', { for: `${form.id}-depth` }, 'Levels', form.depth),
    h('button', { type: 'submit', class: 'primary' }, form.submit),
    ...(form.extra ?? []),
  );
}
