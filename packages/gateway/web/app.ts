// The fleetls dashboard: hosts with their cached status, a directory browser, where the space
// went (treemap + size list), a comparison of hosts, and running walks. Every view's state is
// in the URL (shareable, reloadable; back and forward work). It calls the Fleet API of the
// server that served it; the bearer token is typed in and kept in this tab's sessionStorage.
import type { DashboardSignIn } from '../src/grants/dashboard-sign-in.js';
import { browseView } from './browse-view.js';
import { compareView } from './compare-view.js';
import { makeContext, query, type View } from './context.js';
import { $ } from './dom.js';
import { dashboardCall, FleetCallError } from './fleet-client.js';
import { hostsView } from './hosts-view.js';
import { scansView } from './scans-view.js';
import { spaceView } from './space-view.js';

const TOKEN_KEY = 'fleetls-token';
/** Set once the gateway accepted this tab's token: a later refusal is then a changed or expired token. */
const ACCEPTED_KEY = 'fleetls-token-accepted';
const THEME_KEY = 'fleetls-theme';
/** The PKCE verifier and state of a sign-in with the issuer, between leaving for it and coming back. */
const PKCE_KEY = 'fleetls-pkce';

const VIEWS: Record<string, View> = {
  hosts: hostsView,
  browse: browseView,
  space: spaceView,
  compare: compareView,
  scans: scansView,
};

/** The tool each view calls: a principal of a grants file sees the views of its tools only. */
const VIEW_TOOL: Record<string, string> = {
  hosts: 'list_hosts',
  browse: 'list_directory',
  space: 'disk_usage',
  compare: 'diff_directory',
  scans: 'scan_status',
};

/** GET /dashboard/api/me: who this tab is signed in as; `tools` absent means every tool (no grants file). */
interface Me {
  principal?: string;
  tools?: string[];
  hosts?: string[];
  paths?: string[];
}

const token = (): string | undefined => sessionStorage.getItem(TOKEN_KEY) || undefined;
let signedIn = false;
/** The views this tab's principal may use, in nav order. */
let allowed: string[] = Object.keys(VIEWS);
/** The paths this tab's grant reaches (--grants), undefined when not narrowed. */
let grantedPaths: string[] | undefined;
let current: AbortController | undefined;

class SignInNeeded extends Error {}

/** Why the gateway refused: no token, a token it never accepted, or one it accepted before. */
function refused(err: FleetCallError): void {
  const sent = token() !== undefined;
  const accepted = sessionStorage.getItem(ACCEPTED_KEY) === '1';
  sessionStorage.removeItem(TOKEN_KEY);
  sessionStorage.removeItem(ACCEPTED_KEY);
  let kind: 'missing' | 'wrong' | 'expired';
  let text: string;
  if (!sent) {
    kind = 'missing';
    text = 'This gateway requires a bearer token. Enter it to continue.';
  } else if (accepted) {
    kind = 'expired';
    text =
      'The token this tab signed in with is no longer accepted: it expired, or the gateway now runs with another one. Sign in with the current token.';
  } else {
    kind = 'wrong';
    text = 'The gateway refused that token: it is not the one it runs with. Check it and try again.';
  }
  showLogin(kind, text, err.message);
}

function showLogin(kind: string, text: string, detail?: string): void {
  signedIn = false;
  current?.abort();
  for (const v of document.querySelectorAll<HTMLElement>('.view')) v.hidden = true;
  $('#nav').hidden = true;
  $('#forget').hidden = true;
  $('#conn').textContent = 'signed out';
  const form = $<HTMLFormElement>('#login');
  form.hidden = false;
  const state = $('#login-state');
  state.hidden = false;
  state.dataset.kind = kind;
  state.className = `state ${kind === 'missing' || kind === 'signed-out' ? 'info' : kind === 'expired' ? 'warn' : 'bad'}`;
  state.textContent = detail && kind !== 'missing' ? `${text} (gateway: ${detail})` : text;
  $<HTMLInputElement>('#token').focus();
}

async function guard<T>(p: Promise<T>): Promise<T> {
  try {
    const v = await p;
    if (token()) sessionStorage.setItem(ACCEPTED_KEY, '1');
    return v;
  } catch (err) {
    if (err instanceof FleetCallError && err.code === 'unauthenticated') {
      refused(err);
      throw new SignInNeeded('sign in needed');
    }
    throw err;
  }
}

function navigate(params: Record<string, string | undefined>, replace = false): void {
  const url = query(params);
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  void render();
}

async function render(): Promise<void> {
  if (!signedIn) return;
  current?.abort();
  const ac = new AbortController();
  current = ac;
  const params = new URLSearchParams(location.search);
  const asked = params.get('view') ?? '';
  const name = VIEWS[asked] && allowed.includes(asked) ? asked : allowed[0];
  if (name === undefined) return;
  // A refusal of the last view (a path outside the grant, say) is not this one's.
  $('#fatal').hidden = true;
  for (const a of document.querySelectorAll<HTMLAnchorElement>('#nav a')) {
    if (a.dataset.view === name) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
    a.setAttribute('href', carried(`?view=${a.dataset.view}`));
  }
  for (const [v] of Object.entries(VIEWS)) $(`#view-${v}`).hidden = v !== name;
  document.title = `${name[0].toUpperCase()}${name.slice(1)} · fleetls`;
  try {
    if (PATHED.has(name) && !params.has('path')) {
      // A view without a path opens where the selected hosts allow (`/` is refused by a
      // gateway with roots): the gateway reads each host's roots (faces/web/roots.ts).
      params.set('path', await openingPath(params.get('host') || 'all', ac.signal));
      if (ac.signal.aborted) return;
      history.replaceState(null, '', `?${params.toString()}`);
      for (const a of document.querySelectorAll<HTMLAnchorElement>('#nav a'))
        a.setAttribute('href', carried(`?view=${a.dataset.view}`));
    }
    await VIEWS[name]($(`#view-${name}`), makeContext(params, ac.signal, token, guard, navigate));
  } catch (err) {
    if (err instanceof SignInNeeded || ac.signal.aborted) return;
    const fatal = $('#fatal');
    fatal.hidden = false;
    fatal.textContent = (err as Error).message;
  }
}

/** The views of a path: they open on an allowed one and keep it when another is picked. */
const PATHED = new Set(['browse', 'space', 'compare']);
const opening = new Map<string, string>();

/** Where a view over `host` opens: a path those hosts all allow, asked once per selector. */
async function openingPath(host: string, signal: AbortSignal): Promise<string> {
  const known = opening.get(host);
  if (known) return known;
  const { path: hosts } = await guard(
    dashboardCall<{ path: string }>('GET', `roots?host=${encodeURIComponent(host)}`, { token: token(), signal }),
  );
  // Within the grant too: the hosts' path if the grant reaches it, else a granted path under it.
  const within = (root: string, p: string) => root === '/' || p === root || p.startsWith(`${root}/`);
  const granted = grantedPaths;
  const path =
    granted === undefined || granted.length === 0 || granted.some((g) => within(g, hosts))
      ? hosts
      : (granted.find((g) => within(hosts, g)) ?? granted[0]);
  opening.set(host, path);
  return path;
}

/** A view's link from the one shown: the hosts and path go along (Browse → Space stays on /var/log). */
function carried(href: string): string {
  const to = new URLSearchParams(href.slice(1));
  const from = new URLSearchParams(location.search);
  if (!PATHED.has(to.get('view') ?? '')) return href;
  for (const k of ['host', 'path']) {
    const v = from.get(k);
    if (v && !to.has(k)) to.set(k, v);
  }
  return `?${to.toString()}`;
}

/** The first call says whether a token is needed, whether this one is right, and what it may see. */
async function start(): Promise<void> {
  $('#fatal').hidden = true;
  let me: Me;
  try {
    me = await guard(dashboardCall<Me>('GET', 'me', { token: token() }));
  } catch (err) {
    if (err instanceof SignInNeeded) return;
    $('#fatal').hidden = false;
    $('#fatal').textContent = `The gateway did not answer: ${(err as Error).message}`;
    return;
  }
  signedIn = true;
  $<HTMLFormElement>('#login').hidden = true;
  $('#nav').hidden = false;
  $('#forget').hidden = token() === undefined;
  $('#conn').textContent = me.principal
    ? `signed in as ${me.principal}`
    : token()
      ? 'signed in (bearer token)'
      : 'no token needed (loopback, --no-auth)';
  const tools = me.tools;
  grantedPaths = me.paths;
  allowed = Object.keys(VIEWS).filter((v) => tools === undefined || tools.includes(VIEW_TOOL[v]));
  for (const a of document.querySelectorAll<HTMLAnchorElement>('#nav a'))
    a.hidden = !allowed.includes(a.dataset.view ?? '');
  if (allowed.length === 0) {
    $('#fatal').hidden = false;
    $('#fatal').textContent =
      `${me.principal} may call ${tools?.join(', ') || 'no tool'} on hosts ${me.hosts?.join(', ') || 'none'} under ${me.paths?.join(', ') || 'no path'}: the dashboard has no view for these (its views list hosts, browse, sizes, compare and scans).`;
  }
  await render();
}

// ---- theme: auto (the system's), light, dark ----
function applyTheme(): void {
  const t = localStorage.getItem(THEME_KEY) ?? 'auto';
  if (t === 'auto') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = t;
  const b = $('#theme');
  b.textContent = `Theme: ${t}`;
  b.title =
    t === 'auto' ? 'Follows the system; click for light, dark, auto' : 'Click for the next of light, dark, auto';
}
$('#theme').addEventListener('click', () => {
  const t = localStorage.getItem(THEME_KEY) ?? 'auto';
  const next = t === 'auto' ? 'light' : t === 'light' ? 'dark' : 'auto';
  if (next === 'auto') localStorage.removeItem(THEME_KEY);
  else localStorage.setItem(THEME_KEY, next);
  applyTheme();
});
applyTheme();

$<HTMLFormElement>('#login').addEventListener('submit', (ev) => {
  ev.preventDefault();
  const input = $<HTMLInputElement>('#token');
  sessionStorage.setItem(TOKEN_KEY, input.value.trim());
  sessionStorage.removeItem(ACCEPTED_KEY);
  input.value = '';
  void start();
});
$('#forget').addEventListener('click', () => {
  sessionStorage.removeItem(TOKEN_KEY);
  sessionStorage.removeItem(ACCEPTED_KEY);
  showLogin('signed-out', 'Signed out. The token was removed from this tab.');
});

// In-page links (?view=…) move through history without reloading; modified clicks open tabs as usual.
document.addEventListener('click', (ev) => {
  const a = (ev.target as Element).closest?.('a');
  if (!a || ev.defaultPrevented || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
  const href = a.getAttribute('href') ?? '';
  if (!href.startsWith('?')) return;
  ev.preventDefault();
  history.pushState(null, '', href);
  void render();
  $('#main').focus({ preventScroll: true });
});
window.addEventListener('popstate', () => void render());

// Keys: "/" to the view's first field; g then h/b/s/c/r for a view; Backspace (outside fields) up a level.
let pendingG = false;
document.addEventListener('keydown', (ev) => {
  const t = ev.target as HTMLElement;
  if (t.closest('input, select, textarea') || ev.metaKey || ev.ctrlKey || ev.altKey || !signedIn) return;
  if (ev.key === '/') {
    const field = document.querySelector<HTMLInputElement>('.view:not([hidden]) input');
    if (field) {
      ev.preventDefault();
      field.focus();
      field.select();
    }
    return;
  }
  if (pendingG) {
    pendingG = false;
    const view = { h: 'hosts', b: 'browse', s: 'space', c: 'compare', r: 'scans' }[ev.key];
    if (view) document.querySelector<HTMLAnchorElement>(`#nav a[data-view="${view}"]`)?.click();
    return;
  }
  if (ev.key === 'g') pendingG = true;
  if (ev.key === 'Backspace') document.querySelector<HTMLAnchorElement>('.view:not([hidden]) a[data-up]')?.click();
});

// ---- sign-in with the gateway's OAuth issuer (authorization code + PKCE), when it names one ----

const b64url = (bytes: Uint8Array): string =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
const randomText = (): string => b64url(crypto.getRandomValues(new Uint8Array(32)));
/** Where the issuer sends the browser back: this page, without its query. */
const redirectUri = (): string => `${location.origin}${location.pathname}`;

/** GET /dashboard/oauth: the issuer's endpoints and the dashboard's public client (204: token only). */
async function signInConfig(): Promise<DashboardSignIn | undefined> {
  const res = await fetch('/dashboard/oauth').catch(() => undefined);
  return res?.status === 200 ? ((await res.json()) as DashboardSignIn) : undefined;
}

async function offerSignIn(): Promise<void> {
  const config = await signInConfig();
  if (!config) return;
  $('#oauth-box').hidden = false;
  $('#oauth-signin').textContent = `Sign in with ${new URL(config.issuer).host}`;
  $('#oauth-signin').onclick = async () => {
    const verifier = randomText();
    const state = randomText();
    const challenge = b64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
    sessionStorage.setItem(PKCE_KEY, JSON.stringify({ verifier, state, view: location.search }));
    const u = new URL(config.authorization_endpoint);
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: config.client_id,
      redirect_uri: redirectUri(),
      scope: config.scope,
      resource: config.resource,
      state,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }))
      u.searchParams.set(k, v);
    location.assign(u.toString());
  };
}

/**
 * Back from the issuer with ?code&state: the code traded for an access token, which signs this
 * tab in. False when the sign-in failed and the form says why (start() would say something else).
 */
async function finishSignIn(): Promise<boolean> {
  const params = new URLSearchParams(location.search);
  const code = params.get('code');
  const back = params.get('state');
  const error = params.get('error');
  if (!back || (!code && !error)) return true;
  const kept = JSON.parse(sessionStorage.getItem(PKCE_KEY) ?? 'null') as {
    verifier: string;
    state: string;
    view: string;
  } | null;
  sessionStorage.removeItem(PKCE_KEY);
  history.replaceState(null, '', `${location.pathname}${kept?.view ?? ''}`);
  if (!kept || kept.state !== back) return true;
  if (error) {
    showLogin('wrong', `The identity provider did not sign you in: ${error}`);
    return false;
  }
  const config = await signInConfig();
  if (!config || !code) return true;
  const res = await fetch(config.token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri(),
      client_id: config.client_id,
      code_verifier: kept.verifier,
      resource: config.resource,
    }),
  });
  const body = (await res.json().catch(() => ({}))) as { access_token?: string; error_description?: string };
  if (!res.ok || !body.access_token) {
    showLogin('wrong', `The identity provider refused the sign-in: ${body.error_description ?? res.status}`);
    return false;
  }
  sessionStorage.setItem(TOKEN_KEY, body.access_token);
  sessionStorage.removeItem(ACCEPTED_KEY);
  return true;
}

// `fleetls serve --http` on a terminal prints the dashboard's address with its token after '#'
// (as Jupyter prints its URL): a fragment never reaches a server or a proxy log. It signs this
// tab in and is cleared from the address bar and history at once.
const linked = new URLSearchParams(location.hash.slice(1)).get('token');
if (linked) {
  sessionStorage.setItem(TOKEN_KEY, linked);
  sessionStorage.removeItem(ACCEPTED_KEY);
  history.replaceState(null, '', `${location.pathname}${location.search}`);
}

void offerSignIn();
void finishSignIn().then((go) => (go ? start() : undefined));
