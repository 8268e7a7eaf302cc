import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { problemsOf } from '../../testing/config-problems.js';
import { inventoryFormat, parseAnsibleInventory } from './ansible.js';
import { expandHostPattern } from './groups.js';

const SRC = '/etc/ansible/hosts.ini';
const ini = (text: string) => parseAnsibleInventory(text, 'ansible-ini', { source: SRC, home: '/home/op' });
const yaml = (text: string) =>
  parseAnsibleInventory(text, 'ansible-yaml', { source: '/etc/ansible/hosts.yaml', home: '/home/op' });

describe('inventoryFormat', () => {
  it('tells the formats apart by shape', () => {
    assert.equal(inventoryFormat('hosts:\n  a: { agent: "a:1" }\n', '/x/fleetls.yaml'), 'fleetls');
    assert.equal(inventoryFormat('[web]\nw1\n', '/x/hosts'), 'ansible-ini');
    assert.equal(inventoryFormat('w1\nw2\n', '/x/hosts'), 'ansible-ini');
    assert.equal(inventoryFormat('w1 ansible_host=1.2.3.4\n', '/x/inventory.ini'), 'ansible-ini');
    assert.equal(inventoryFormat('all:\n  hosts:\n    w1:\n', '/x/hosts.yml'), 'ansible-yaml');
    assert.equal(inventoryFormat('web:\n  hosts: { w1: }\ndb:\n  children: {}\n', '/x/h.yml'), 'ansible-yaml');
  });

  it('refuses dynamic inventory scripts and plugins, naming them', () => {
    assert.throws(
      () => inventoryFormat('#!/usr/bin/env python3\nprint("{}")\n', '/x/ec2.py'),
      /dynamic inventory script is not supported.*ansible-inventory -i SOURCE --list --yaml/,
    );
    assert.throws(
      () => inventoryFormat('plugin: amazon.aws.aws_ec2\nregions: [eu-west-1]\n', '/x/aws_ec2.yml'),
      /inventory plugin 'amazon\.aws\.aws_ec2' is not supported/,
    );
  });
});

describe('expandHostPattern', () => {
  it('expands numeric (zero-padded, stride) and letter ranges', () => {
    assert.deepEqual(expandHostPattern('web[01:03].example.com'), [
      'web01.example.com',
      'web02.example.com',
      'web03.example.com',
    ]);
    assert.deepEqual(expandHostPattern('db[1:5:2]'), ['db1', 'db3', 'db5']);
    assert.deepEqual(expandHostPattern('[a:c]-x'), ['a-x', 'b-x', 'c-x']);
    assert.deepEqual(expandHostPattern('plain'), ['plain']);
  });
});

describe('parseAnsibleInventory (INI)', () => {
  const inv = ini(
    [
      '# fleet',
      'bastion ansible_host=203.0.113.9 ansible_user=ops',
      '',
      '[webservers]',
      'web[1:2] ansible_user=deploy tier=front',
      'web3:2222 fleetls_agent=10.0.0.3:7443',
      '',
      '[dbservers]',
      'db1 ansible_host=10.0.0.10 ansible_ssh_private_key_file=~/.ssh/db',
      '',
      '[prod:children]',
      'webservers',
      'dbservers',
      '',
      '[prod:vars]',
      'env=prod',
      'tier=back',
      '',
      '[all:vars]',
      'fleetls_agent_tls_ca=pki/ca.crt',
      'ansible_python_interpreter=/usr/bin/python3',
      '',
    ].join('\n'),
  );
  const host = (name: string) => inv.hosts.find((h) => h.name === name);

  it('reads hosts, ansible_host/port/user and keys as SSH settings', () => {
    assert.deepEqual(
      inv.hosts.map((h) => h.name),
      ['bastion', 'web1', 'web2', 'web3', 'db1'],
    );
    assert.deepEqual(host('bastion')?.ssh, { host: '203.0.113.9', user: 'ops' });
    assert.deepEqual(host('web1')?.ssh, { host: 'web1', user: 'deploy' });
    assert.deepEqual(host('web3')?.ssh, { host: 'web3', port: 2222 });
    assert.equal(host('web3')?.agent, '10.0.0.3:7443');
    assert.deepEqual(host('db1')?.ssh, { host: '10.0.0.10', identityFile: '/home/op/.ssh/db' });
    assert.deepEqual(inv.agentTls, { ca: '/etc/ansible/pki/ca.crt' });
  });

  it('flattens children into groups; group then host variables become labels', () => {
    assert.deepEqual(inv.groups.webservers, ['web1', 'web2', 'web3']);
    assert.deepEqual(inv.groups.prod, ['web1', 'web2', 'web3', 'db1']);
    assert.deepEqual(inv.groups.ungrouped, ['bastion']);
    assert.deepEqual(host('web1')?.groups, ['webservers', 'prod']);
    // The host's own tier=front beats prod's tier=back; ansible_* variables are not labels.
    assert.deepEqual(host('web1')?.labels, { env: 'prod', tier: 'front' });
    assert.deepEqual(host('bastion')?.labels, {});
  });

  it('one error lists every problem with its line', () => {
    const got = problemsOf(() =>
      ini(
        [
          '[web]',
          'w1 ansible_port=99999',
          'w2 =oops',
          'w3 ansible_connection=winrm',
          '[web:vars]',
          'not a var',
          '[web:frobnicate]',
          'w4 fleetls_agent=nope',
        ].join('\n'),
      ),
    );
    assert.deepEqual(got, [
      'hosts.ini:3: expected key=value, got "=oops"',
      'hosts.ini:6: expected key=value in [web:vars], got "not a var"',
      'hosts.ini:7: unknown section kind :frobnicate (expected [group], [group:vars] or [group:children])',
      'hosts.ini:2: host w1: ansible_port expected an integer in 1..65535, got "99999"',
      'hosts.ini:4: host w3: ansible_connection=winrm is not supported (fleetls uses ssh or its agent)',
      'hosts.ini:8: host w4: fleetls_agent expected "host:port", got "nope"',
    ]);
  });

  it('refuses an agent without TLS settings, and a cycle of children', () => {
    assert.deepEqual(
      problemsOf(() => ini('w1 fleetls_agent=w1:7443\n')),
      ['all.vars: a host has fleetls_agent: set fleetls_agent_tls_ca (and _cert, _key) or fleetls_agent_tls=insecure'],
    );
    const cycle = problemsOf(() => ini('[a:children]\nb\n[b:children]\na\n[a]\nh1\n'));
    assert.ok(
      cycle.some((l) => /children form a cycle: a → b → a/.test(l)),
      cycle.join('\n'),
    );
  });
});

describe('parseAnsibleInventory (YAML)', () => {
  it('reads nested children, vars and hosts', () => {
    const inv = yaml(
      [
        'all:',
        '  vars: { fleetls_agent_tls: insecure, region: eu }',
        '  hosts:',
        '    localhost: { ansible_connection: local, fleetls_embedded_allow: [/var/log] }',
        '  children:',
        '    webservers:',
        '      vars: { role: web }',
        '      hosts:',
        '        web-1: { ansible_host: 10.0.0.1, ansible_port: 2200 }',
        '        web-2:',
        '    agents:',
        '      hosts:',
        '        web-1: { fleetls_agent: "10.0.0.1:7443" }',
        '',
      ].join('\n'),
    );
    assert.deepEqual(
      inv.hosts.map((h) => [h.name, h.agent, h.ssh?.host, h.ssh?.port, h.labels, h.groups]),
      [
        ['localhost', undefined, undefined, undefined, { region: 'eu' }, []],
        ['web-1', '10.0.0.1:7443', '10.0.0.1', 2200, { region: 'eu', role: 'web' }, ['webservers', 'agents']],
        ['web-2', undefined, 'web-2', undefined, { region: 'eu', role: 'web' }, ['webservers']],
      ],
    );
    assert.equal(inv.agentTls, 'insecure');
    assert.deepEqual(inv.groups.webservers, ['web-1', 'web-2']);
  });

  it('names unknown keys by their path', () => {
    assert.deepEqual(
      problemsOf(() => yaml('all:\n  children:\n    web:\n      host: { w1: }\n')),
      ['all.children.web.host: unknown key (expected one of: hosts, children, vars)'],
    );
  });
});

describe('parseAnsibleInventory: localhost', () => {
  it('is this machine (ansible_connection=local) only under the roots fleetls_embedded_allow gives', () => {
    const inv = ini('localhost ansible_connection=local fleetls_embedded_allow=/var/log,/srv\nweb-1\n');
    assert.deepEqual(inv.hosts[0].embedded, { allow: ['/var/log', '/srv'] });
    assert.deepEqual(inv.hosts[0].labels, {}, 'the roots are not a label');
    assert.deepEqual(
      yaml('all:\n  hosts:\n    localhost: { ansible_connection: local, fleetls_embedded_allow: [/var/log] }\n')
        .hosts[0].embedded,
      { allow: ['/var/log'] },
    );
    const missing = problemsOf(() => ini('localhost ansible_connection=local\nweb-1\n'));
    assert.equal(missing.length, 1, missing.join('\n'));
    assert.match(missing[0], /ansible_connection=local is this machine.*set fleetls_embedded_allow/);
    const relative = problemsOf(() => ini('localhost ansible_connection=local fleetls_embedded_allow=var/log\n'));
    assert.match(relative.join('\n'), /fleetls_embedded_allow\[0\]: expected an absolute directory, got "var\/log"/);
  });
});
