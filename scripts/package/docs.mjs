// The man pages (fleetls(1), fleetls-agent(8)) and the bash, zsh and fish completions the
// packages install, written from the commander programs that print --help: the gateway's
// (its global flags, one subcommand per tool from the tool schemas, serve, pki) and the
// agent's. A flag added to either shows up in all of them with no second list to keep.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

/** Where each file goes in a package, by format: zsh reads vendor completions from another place on each. */
export function docPaths(exe, section, format) {
  const zsh = format === 'rpm' ? 'usr/share/zsh/site-functions' : 'usr/share/zsh/vendor-completions';
  return {
    man: `usr/share/man/man${section}/${exe}.${section}.gz`,
    bash: `usr/share/bash-completion/completions/${exe}`,
    zsh: `${zsh}/_${exe}`,
    fish: `usr/share/fish/vendor_completions.d/${exe}.fish`,
  };
}

const quiet = { write() {} };

/** The built programs of the repository (npm run build): the gateway's CLI with every verb, and the agent's. */
export async function loadPrograms(repoRoot, versions) {
  const load = (rel) => import(pathToFileURL(path.join(repoRoot, rel)).href);
  const [{ cliProgram }, { EXAMPLES, EXIT_CODES }, { buildProgram }] = await Promise.all([
    load('packages/gateway/dist/faces/cli/run.js'),
    load('packages/gateway/dist/faces/cli/globals.js'),
    load('packages/agent/dist/config/flags.js'),
  ]);
  const io = { argv: [], env: {}, cwd: repoRoot, stdout: quiet, stderr: quiet, version: versions.gateway };
  return {
    fleetls: {
      program: await cliProgram(io),
      section: 1,
      version: versions.gateway,
      examples: EXAMPLES,
      exitCodes: EXIT_CODES,
      files: [
        ['./fleetls.yaml', 'the inventory, when --inventory and $FLEETLS_INVENTORY name none'],
        ['/etc/fleetls/gateway.yaml', "the gateway package's inventory: the CLI's when nothing else names one"],
        ['/etc/fleetls/gateway/token', 'the bearer token of fleetls.service (made at install)'],
      ],
      environment: [
        ['FLEETLS_INVENTORY', 'the inventory file (set but empty: none, localhost only)'],
        ['FLEETLS_TOKEN', 'the bearer token of serve --http and --grpc (or --token-file)'],
        ['FLEETLS_STATE_DIR', 'where scans spill rows past their memory bound'],
        ['FLEETLS_LOG_LEVEL', 'the JSON log level on stderr'],
        ['NO_COLOR', 'no colour, even on a terminal'],
      ],
      seeAlso: ['fleetls-agent(8)'],
    },
    'fleetls-agent': {
      program: buildProgram(versions.agent),
      section: 8,
      version: versions.agent,
      examples: [
        ['fleetls-agent --listen 0.0.0.0:7443 --allow /var/log --allow /srv --tls-cert agent.crt --tls-key agent.key --tls-ca ca.crt', 'serve two roots over mTLS'],
        ['fleetls-agent --config /etc/fleetls/agent.yaml', 'as fleetls-agent.service runs it'],
      ],
      exitCodes: [
        [0, 'stopped on SIGTERM or SIGINT'],
        [2, 'a bad flag or configuration (one line naming the key)'],
      ],
      files: [['/etc/fleetls/agent.yaml', 'the configuration of fleetls-agent.service']],
      environment: [['FLEETLS_AGENT_CONFIG', 'the configuration file (default /etc/fleetls/agent.yaml)']],
      seeAlso: ['fleetls(1)'],
    },
  };
}

/** The four files of one program: its man page (gzipped, as man reads it) and its completions. */
export function renderDocs(doc, date) {
  return {
    man: gzipSync(manPage(doc, date), { level: 9 }),
    bash: bashCompletion(doc),
    zsh: zshCompletion(doc),
    fish: fishCompletion(doc),
  };
}

// ---- man ----

/** Text as roff reads it literally: backslashes, a leading dot or quote, and hyphens that are minus signs. */
function roff(text) {
  return String(text)
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .replace(/^([.'])/gm, '\\&$1')
    .replace(/[^\x00-\x7f]/g, (ch) => `\\[u${ch.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}]`);
}

const visible = (c) => c.options.filter((o) => !o.hidden);
const subcommands = (c) => c.commands.filter((s) => !s._hidden && s.name() !== 'help');

function argumentsOf(c) {
  return (c.registeredArguments ?? []).map((a) => {
    const name = `${a.name()}${a.variadic ? '...' : ''}`;
    return a.required ? `<${name}>` : `[${name}]`;
  });
}

function optionItem(o) {
  const [flag, value] = o.flags.split(/ (?=[<[])/);
  const choices = o.argChoices ? ` (one of ${o.argChoices.join(', ')})` : '';
  return [
    '.TP',
    `.B ${roff(flag)}${value ? ` " " \\fI${roff(value)}\\fR` : ''}`.replace('.B ', value ? '.BR ' : '.B '),
    roff(`${o.description}${choices}`),
  ];
}

function commandSection(c, prefix) {
  const name = `${prefix} ${c.name()}`;
  const lines = ['.SS', `"${roff([name, ...argumentsOf(c)].join(' '))}"`].join(' ');
  const out = [lines, roff(c.description())];
  for (const a of c.registeredArguments ?? []) if (a.description) out.push('.TP', `.I ${roff(a.name())}`, roff(a.description));
  for (const o of visible(c)) out.push(...optionItem(o));
  for (const s of subcommands(c)) out.push(...commandSection(s, name));
  return out;
}

/** The roff of a man page of `program`. */
export function manPage(doc, date) {
  const { program: p, section } = doc;
  const name = p.name();
  const title = section === 8 ? 'System Administration' : 'User Commands';
  const out = [
    `.TH ${name.toUpperCase()} ${section} "${date}" "fleetls ${doc.version}" "${title}"`,
    '.SH NAME',
    `${roff(name)} \\- ${roff(p.description())}`,
    '.SH SYNOPSIS',
    `.B ${roff(name)}`,
    subcommands(p).length > 0 ? '[\\fIoptions\\fR] \\fIcommand\\fR [\\fIcommand options\\fR] \\fIarguments\\fR' : '[\\fIoptions\\fR]',
    '.SH DESCRIPTION',
    roff(p.description()),
    '.SH OPTIONS',
    ...visible(p).flatMap(optionItem),
  ];
  if (subcommands(p).length > 0) {
    out.push('.SH COMMANDS');
    for (const c of subcommands(p)) out.push(...commandSection(c, name));
  }
  out.push('.SH EXAMPLES');
  for (const [cmd, what] of doc.examples) out.push('.TP', `.B ${roff(cmd)}`, roff(what));
  out.push('.SH EXIT STATUS');
  for (const [code, what] of doc.exitCodes) out.push('.TP', `.B ${code}`, roff(what));
  out.push('.SH ENVIRONMENT');
  for (const [v, what] of doc.environment) out.push('.TP', `.B ${v}`, roff(what));
  out.push('.SH FILES');
  for (const [f, what] of doc.files) out.push('.TP', `.I ${roff(f)}`, roff(what));
  out.push('.SH SEE ALSO', doc.seeAlso.map((s) => `.BR ${s.replace('(', ' (')}`).join('\n'));
  return `${out.join('\n')}\n`;
}

// ---- completions ----

/** Every (sub)command with its path of names and its flags: [['ls'], cmd], [['pki','init'], cmd], … */
function walk(c, trail = []) {
  return [[trail, c], ...subcommands(c).flatMap((s) => walk(s, [...trail, s.name()]))];
}

const longs = (c) => visible(c).flatMap((o) => [o.long, o.short].filter(Boolean));
const takesValue = (o) => o.required || o.optional;
const shq = (s) => `'${String(s).replace(/'/g, `'\\''`)}'`;

/** bash: the subcommand, then its flags (and the global ones), a flag's choices after it; files elsewhere. */
export function bashCompletion({ program: p }) {
  const name = p.name();
  const fn = `_${name.replace(/-/g, '_')}`;
  const globalFlags = longs(p);
  const valued = walk(p).flatMap(([, c]) => visible(c).filter(takesValue));
  const cases = walk(p)
    .filter(([trail]) => trail.length > 0)
    .map(([trail, c]) => `    ${shq(trail.join(' '))}) words=${shq([...subcommands(c).map((s) => s.name()), ...longs(c), ...globalFlags].join(' '))} ;;`);
  const choiceCases = valued
    .filter((o) => o.argChoices)
    .map((o) => `    ${o.long}) COMPREPLY=($(compgen -W ${shq(o.argChoices.join(' '))} -- "$cur")); return ;;`);
  const valueFlags = [...new Set(valued.map((o) => o.long))].join('|');
  return `# bash completion for ${name}, written from its --help declarations (scripts/package/docs.mjs)
${fn}() {
  local cur prev words path="" i w
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  case "$prev" in
${choiceCases.join('\n')}
${valueFlags ? `    ${valueFlags}) COMPREPLY=($(compgen -f -- "$cur")); return ;;` : ''}
  esac
  # The subcommands typed so far (words not starting with -, past flags that take a value).
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    case "$w" in
${valueFlags ? `      ${valueFlags}) ((i++)); continue ;;` : ''}
      -*) continue ;;
    esac
    case "\${path:+$path }$w" in
${walk(p)
  .filter(([trail]) => trail.length > 0)
  .map(([trail]) => `      ${shq(trail.join(' '))}) path="\${path:+$path }$w" ;;`)
  .join('\n')}
    esac
  done
  case "$path" in
${cases.join('\n')}
    *) words=${shq([...subcommands(p).map((s) => s.name()), ...globalFlags].join(' '))} ;;
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F ${fn} ${name}
`;
}

/** zsh: _arguments per subcommand, descriptions from --help. */
export function zshCompletion({ program: p }) {
  const name = p.name();
  const esc = (s) => String(s).replace(/[[\]:'\\]/g, (ch) => (ch === "'" ? `'\\''` : `\\${ch}`));
  const spec = (o) => {
    const value = takesValue(o) ? `:${esc(o.flags.split(' ').pop().replace(/[<>[\]]/g, ''))}:${o.argChoices ? `(${o.argChoices.join(' ')})` : '_files'}` : '';
    return `'${o.long ?? o.short}[${esc(o.description).slice(0, 200)}]${value}'`;
  };
  const fnOf = (trail) => `_${name.replace(/-/g, '_')}${trail.map((t) => `_${t.replace(/-/g, '_')}`).join('')}`;
  const functions = walk(p).map(([trail, c]) => {
    const subs = subcommands(c);
    const head = `${fnOf(trail)}() {`;
    if (subs.length === 0) return `${head}\n  _arguments -s ${visible(c).map(spec).join(' ')} '*:argument:_files'\n}`;
    const list = subs.map((s) => `'${s.name()}:${esc(s.description()).slice(0, 120)}'`).join(' ');
    return `${head}
  local line state
  _arguments -C ${visible(c).map(spec).join(' ')} '1: :->cmds' '*::arg:->args'
  case $state in
    cmds) local -a cmds; cmds=(${list}); _describe command cmds ;;
    args) case $line[1] in
${subs.map((s) => `      ${s.name()}) ${fnOf([...trail, s.name()])} ;;`).join('\n')}
    esac ;;
  esac
}`;
  });
  return `#compdef ${name}
# zsh completion for ${name}, written from its --help declarations (scripts/package/docs.mjs)
${functions.join('\n')}
${fnOf([])} "$@"
`;
}

/** fish: one `complete` line per subcommand and flag, shown under the subcommands they belong to. */
export function fishCompletion({ program: p }) {
  const name = p.name();
  const q = (s) => `'${String(s).replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  const out = [`# fish completion for ${name}, written from its --help declarations (scripts/package/docs.mjs)`];
  for (const [trail, c] of walk(p)) {
    const all = walk(p).map(([t]) => t.at(-1)).filter(Boolean);
    const cond =
      trail.length === 0 ? `not __fish_seen_subcommand_from ${all.join(' ')}` : `__fish_seen_subcommand_from ${trail.at(-1)}`;
    for (const s of subcommands(c)) out.push(`complete -c ${name} -f -n ${q(cond)} -a ${q(s.name())} -d ${q(s.description())}`);
    for (const o of visible(c)) {
      const flag = [o.long && `-l ${o.long.slice(2)}`, o.short && `-s ${o.short.slice(1)}`].filter(Boolean).join(' ');
      const value = takesValue(o) ? (o.argChoices ? ` -x -a ${q(o.argChoices.join(' '))}` : ' -r') : '';
      // Global flags anywhere; a subcommand's own once it is typed.
      const where = trail.length === 0 ? '' : ` -n ${q(cond)}`;
      out.push(`complete -c ${name}${where} ${flag}${value} -d ${q(o.description)}`);
    }
  }
  return `${out.join('\n')}\n`;
}
