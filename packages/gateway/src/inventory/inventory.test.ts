import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { FleetError } from '@fleetls/core';
import { problemsOf } from '../testing/config-problems.js';
import { isAgentAddress, parseInventory, resolveFilePath } from './inventory.js';
import { loadInventory, resolveInventoryPath } from './inventory-file.js';

const SRC = '/etc/fleetls/fleetls.yaml';
const HOME = '/home/op';
const parse = (text: string) => parseInventory(text, { source: SRC, home: HOME });

const problems = (text: string) => problemsOf(() => parse(text));

describe('parseInventory', () => {
  it('reads the example of the issue', () => {
    const inv = parse(`
hosts:
  web-1: { agent: "10.0.0.5:7443", labels: { role: web } }
  db-1:  { ssh: { host: db1.example.com, port: 22, user: fleet, identity_file: ~/.ssh/id_ed25519, known_hosts: ~/.ssh/known_hosts } }
  edge:  { agent: "10.0.0.9:7443", ssh: { host: 10.0.0.9 } }
  alias: { ssh: myalias }
groups: { prod: [web-1, db-1] }
agent_tls: { ca: ca.crt, cert: gateway.crt, key: /abs/gateway.key }
agent_token_file: token
defaults: { concurrency: 8, connect_timeout_ms: 1500, deadline_ms: 10000, max_answer_bytes: 65536 }
`);
    assert.deepEqual(
      inv.hosts.map((h) => h.name),
      ['web-1', 'db-1', 'edge', 'alias'],
    );
    assert.deepEqual(inv.hosts[0], {
      name: 'web-1',
      agent: '10.0.0.5:7443',
      labels: { role: 'web' },
      groups: ['prod'],
    });
    assert.deepEqual(inv.hosts[1].ssh, {
      host: 'db1.example.com',
      port: 22,
      user: 'fleet',
      identityFile: '/home/op/.ssh/id_ed25519',
      knownHosts: '/home/op/.ssh/known_hosts',
    });
    assert.deepEqual(inv.hosts[2].ssh, { host: '10.0.0.9' });
    assert.equal(inv.hosts[2].agent, '10.0.0.9:7443');
    assert.deepEqual(inv.hosts[3].ssh, { host: 'myalias' });
    assert.deepEqual(inv.groups, { prod: ['web-1', 'db-1'] });
    assert.deepEqual(inv.agentTls, {
      ca: '/etc/fleetls/ca.crt',
      cert: '/etc/fleetls/gateway.crt',
      key: '/abs/gateway.key',
    });
    assert.equal(inv.agentTokenFile, '/etc/fleetls/token');
    assert.deepEqual(inv.defaults, {
      concurrency: 8,
      connectTimeoutMs: 1500,
      deadlineMs: 10000,
      maxAnswerBytes: 65536,
    });
  });

  it('accepts agent_tls: insecure and ssh without host (the name is the target)', () => {
    const inv = parse('hosts:\n  a: { agent: "[::1]:7443" }\n  b: { ssh: { user: x } }\nagent_tls: insecure\n');
    assert.equal(inv.agentTls, 'insecure');
    assert.deepEqual(inv.hosts[1].ssh, { host: 'b', user: 'x' });
  });

  it('lets the inventory define localhost, embedded under its own roots only', () => {
    const inv = parse('hosts:\n  localhost: { embedded: { allow: [/var/log, /srv] } }\n  other: { ssh: o }\n');
    assert.deepEqual(inv.hosts[0], {
      name: 'localhost',
      embedded: { allow: ['/var/log', '/srv'] },
      labels: {},
      groups: [],
    });
    assert.deepEqual(parse('hosts:\n  localhost: { ssh: { port: 2222 } }\n').hosts[0].ssh, {
      host: 'localhost',
      port: 2222,
    });
  });

  it('refuses a localhost without roots, and embedded anywhere else or beside agent/ssh', () => {
    const needs =
      "hosts.localhost: needs `embedded: { allow: [DIR, …] }` (this machine, listed by the gateway's own agent under those roots only), or `agent` / `ssh`, as localhost: { embedded: { allow: [/var/log] } }";
    assert.deepEqual(problems('hosts:\n  localhost:\n'), [needs]);
    assert.deepEqual(problems('hosts:\n  localhost: { labels: { a: b } }\n'), [needs]);
    assert.deepEqual(
      problems(`
hosts:
  localhost: { embedded: { allow: [var/log, "", 3], deny: [/] } }
  web-1: { embedded: { allow: [/] } }
  box: { ssh: b, embedded: { allow: [/] } }
`),
      [
        'hosts.localhost.embedded.deny: unknown key (expected one of: allow)',
        'hosts.localhost.embedded.allow[0]: expected an absolute directory, got "var/log"',
        'hosts.localhost.embedded.allow[1]: expected an absolute directory, got ""',
        'hosts.localhost.embedded.allow[2]: expected an absolute directory, got 3',
        'hosts.web-1.embedded: only the host named localhost is this machine, served by the embedded agent',
        'hosts.box.embedded: only the host named localhost is this machine, served by the embedded agent',
      ],
    );
    assert.deepEqual(problems('hosts:\n  localhost: { embedded: { allow: [] } }\n'), [
      'hosts.localhost.embedded.allow: expected a non-empty list of absolute directories, as [/var/log]',
    ]);
    assert.deepEqual(problems('hosts:\n  localhost: { ssh: l, embedded: { allow: [/] } }\n'), [
      'hosts.localhost.embedded: goes without `agent` and `ssh`: the embedded agent lists this machine itself',
    ]);
  });

  it('reads cors_origins, each exactly an origin', () => {
    assert.deepEqual(
      parse('hosts:\n  a: { ssh: a }\ncors_origins: [https://dash.example, "http://127.0.0.1:3000"]\n').corsOrigins,
      ['https://dash.example', 'http://127.0.0.1:3000'],
    );
    assert.deepEqual(problems('hosts:\n  a: { ssh: a }\ncors_origins: [https://dash.example/, ftp://x, 3]\n'), [
      "cors_origins[0]: expected an origin such as https://dash.example (scheme, host, port only), got 'https://dash.example/'",
      "cors_origins[1]: expected an origin such as https://dash.example (scheme, host, port only), got 'ftp://x'",
      'cors_origins[2]: expected an origin such as https://dash.example, got 3',
    ]);
  });

  it('reads agent: "ssh:PATH" (no agent_tls needed) and names what is wrong with one', () => {
    const inv = parse('hosts:\n  a: { ssh: { host: h1 }, agent: "ssh:/run/fleetls/agent.sock" }\n');
    assert.equal(inv.hosts[0].agentSocket, '/run/fleetls/agent.sock');
    assert.equal(inv.hosts[0].agent, undefined);
    assert.equal(inv.agentTls, undefined);
    const got = problems(`
hosts:
  rel: { ssh: { host: h1 }, agent: "ssh:run/agent.sock" }
  nossh: { agent: "ssh:/run/fleetls/agent.sock" }
  quote: { ssh: h2, agent: "ssh:/run/a b.sock" }
  dots: { ssh: h3, agent: "ssh:/run/../etc/x.sock" }
`);
    assert.deepEqual(got, [
      'hosts.rel.agent: "ssh:PATH": the socket path must be absolute, got "run/agent.sock"',
      'hosts.nossh.agent: "ssh:PATH" reaches the agent through this host\'s SSH connection: add `ssh` settings',
      'hosts.quote.agent: "ssh:PATH": the socket path may hold only letters, digits and . _ + @ / - (no . or .. parts, at most 107 bytes), got "/run/a b.sock"',
      'hosts.dots.agent: "ssh:PATH": the socket path may hold only letters, digits and . _ + @ / - (no . or .. parts, at most 107 bytes), got "/run/../etc/x.sock"',
    ]);
  });

  it('lists every problem at once, each with its key path', () => {
    const got = problems(`
hosts:
  web-1: { agent: "x", labels: { role: [1] } }
  "bad name": { ssh: h }
  db-1: { ssh: { port: 70000, strict_host_key_checking: "no", identity_file: 3, passphrase_env: "1x" } }
  nothing: {}
  typo: { agnet: "a:1" }
  scalar: 5
groups:
  prod: [web-1, ghost, 7]
  dev: web-1
agent_tls: { cert: c.crt }
agent_token_file: ""
defaults: { concurrency: 0, deadline_ms: fast, retries: 3 }
extra: 1
`);
    const expected = [
      'extra: unknown key (expected one of: hosts, groups, agent_tls, agent_token_file, defaults, kubernetes, hosts_from, nats, cors_origins, grants)',
      'hosts.web-1.agent: expected "host:port" or "ssh:/path/to/agent.sock", got "x"',
      'hosts.web-1.labels.role: expected a string, got a list',
      'hosts.bad name: host names use only letters, digits, ".", "_" and "-"',
      'hosts.db-1.ssh.port: expected an integer in 1..65535, got 70000',
      'hosts.db-1.ssh.identity_file: expected a non-empty string, got 3',
      'hosts.db-1.ssh.strict_host_key_checking: expected true or false, got "no"',
      'hosts.db-1.ssh.passphrase_env: expected an environment variable name, got "1x"',
      'hosts.nothing: needs `agent` ("host:port") or `ssh` (a mapping or an ~/.ssh/config alias)',
      'hosts.typo.agnet: unknown key (expected one of: agent, ssh, embedded, labels)',
      'hosts.typo: needs `agent` ("host:port") or `ssh` (a mapping or an ~/.ssh/config alias)',
      'hosts.scalar: expected a mapping with `agent` and/or `ssh`, got 5',
      "groups.prod[1]: unknown host 'ghost'",
      'groups.prod[2]: expected a host name, got 7',
      'groups.dev: expected a list of host names, got "web-1"',
      "agent_tls.ca: required: the CA that signed the agents' certificates",
      "agent_tls: `cert` and `key` go together (the gateway's client certificate and its key)",
      'agent_token_file: expected a file path, got ""',
      'defaults.retries: unknown key (expected one of: concurrency, connect_timeout_ms, deadline_ms, max_answer_bytes, max_answer_tokens, call_deadline_ms, scan_host_deadline_ms, scan_deadline_ms, scan_concurrency, scan_ttl_ms, scans_per_principal, scans_total, scan_memory_rows, host_stall_ms)',
      'defaults.concurrency: expected an integer in 1..1024, got 0',
      'defaults.deadline_ms: expected an integer in 1..3600000, got "fast"',
    ];
    assert.deepEqual(got, expected);
  });

  const table: [string, string, string[]][] = [
    ['empty file', '', ['the inventory is empty (expected a mapping with `hosts`)']],
    ['a list', '- a\n- b\n', ['expected a mapping with `hosts`, got a list']],
    [
      'no hosts',
      'groups: {}\n',
      ['hosts: required (or `kubernetes`): a mapping of host names to { agent, ssh, labels }'],
    ],
    ['hosts a list', 'hosts: [a]\n', ['hosts: expected a mapping of host names, got a list']],
    [
      'agent without agent_tls',
      'hosts:\n  a: { agent: "h:1" }\n',
      ['agent_tls: required when a host has an `agent` "host:port": { ca, cert, key } or "insecure" (plaintext)'],
    ],
    [
      'port 0',
      'hosts:\n  a: { agent: "h:0" }\nagent_tls: insecure\n',
      ['hosts.a.agent: expected "host:port" or "ssh:/path/to/agent.sock", got "h:0"'],
    ],
    [
      'agent a number',
      'hosts:\n  a: { agent: 7443 }\nagent_tls: insecure\n',
      ['hosts.a.agent: expected "host:port" or "ssh:/path/to/agent.sock", got 7443'],
    ],
    [
      'agent_tls other string',
      'hosts: {}\nagent_tls: plain\n',
      ['agent_tls: expected { ca, cert, key } or "insecure", got "plain"'],
    ],
    [
      'ssh alias with a dash',
      'hosts:\n  a: { ssh: "-oProxyCommand=x" }\n',
      ['hosts.a.ssh: expected an address or ~/.ssh/config alias, got "-oProxyCommand=x"'],
    ],
    [
      'ssh host with a dash',
      'hosts:\n  a: { ssh: { host: "-x" } }\n',
      ['hosts.a.ssh.host: expected an address or alias, got "-x"'],
    ],
    ['duplicate key', 'hosts:\n  a: { ssh: a }\n  a: { ssh: b }\n', ['line 3: Map keys must be unique']],
  ];
  for (const [name, text, expected] of table) {
    it(`rejects: ${name}`, () => assert.deepEqual(problems(text), expected));
  }

  it('names the file in the error', () => {
    assert.throws(() => parse('hosts: 1'), /^FleetError: invalid inventory \/etc\/fleetls\/fleetls.yaml: 1 problem:/);
  });
});

describe('isAgentAddress', () => {
  const cases: [string, boolean][] = [
    ['10.0.0.5:7443', true],
    ['agent.example.com:1', true],
    ['[::1]:7443', true],
    ['h:65535', true],
    ['h:65536', false],
    ['h', false],
    [':7443', false],
    ['h:', false],
    ['::1:7443', false],
    ['h :1', false],
  ];
  for (const [s, ok] of cases) it(`${s} → ${ok}`, () => assert.equal(isAgentAddress(s), ok));
});

describe('resolveFilePath', () => {
  it('expands ~ and resolves relative paths against the inventory directory', () => {
    assert.equal(resolveFilePath('~', '/inv', '/h'), '/h');
    assert.equal(resolveFilePath('~/k', '/inv', '/h'), '/h/k');
    assert.equal(resolveFilePath('k/ca.crt', '/inv', '/h'), '/inv/k/ca.crt');
    assert.equal(resolveFilePath('/abs', '/inv', '/h'), '/abs');
  });
});

describe('resolveInventoryPath / loadInventory', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fleetls-inv-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const withFile = join(dir, 'with');
  const without = join(dir, 'without');
  mkdirSync(withFile);
  mkdirSync(without);
  writeFileSync(join(withFile, 'fleetls.yaml'), 'hosts:\n  a: { ssh: a }\n');

  it('prefers --inventory, then $FLEETLS_INVENTORY, then ./fleetls.yaml', () => {
    assert.equal(
      resolveInventoryPath({ inventoryPath: 'x.yaml', env: { FLEETLS_INVENTORY: 'y' }, cwd: '/c' }),
      '/c/x.yaml',
    );
    assert.equal(
      resolveInventoryPath({ env: { FLEETLS_INVENTORY: 'y.yaml' }, cwd: withFile }),
      join(withFile, 'y.yaml'),
    );
    assert.equal(resolveInventoryPath({ env: {}, cwd: withFile }), join(withFile, 'fleetls.yaml'));
    assert.equal(resolveInventoryPath({ env: {}, cwd: without }), undefined);
  });

  it('treats an empty FLEETLS_INVENTORY as no inventory, even beside a fleetls.yaml', () => {
    assert.equal(resolveInventoryPath({ env: { FLEETLS_INVENTORY: '' }, cwd: withFile }), undefined);
    assert.equal(loadInventory({ env: { FLEETLS_INVENTORY: '' }, cwd: withFile }), undefined);
  });

  it('loads the file and says when it is missing', () => {
    assert.deepEqual(
      loadInventory({ env: {}, cwd: withFile })?.hosts.map((h) => h.name),
      ['a'],
    );
    assert.throws(
      () => loadInventory({ inventoryPath: 'nope.yaml', env: {}, cwd: without }),
      (e: unknown) =>
        e instanceof FleetError &&
        e.code === 'invalid_argument' &&
        /nope\.yaml: cannot read it \(no such file\)/.test(e.message),
    );
  });
});
