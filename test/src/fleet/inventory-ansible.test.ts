// An Ansible inventory as operators keep it, given to the real fleetls CLI with
// --inventory: `fleetls ls @webservers:PATH` lists over SSH (a real sshd) the hosts of
// the group, named and addressed as the inventory says; a plugin config is refused.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeTree } from '@fleetls/testkit';
import { fleetls } from '../helpers/cli.js';
import { type Sshd, startSshd } from '../helpers/sshd.js';

/** The CLI as an operator whose ~/.ssh/known_hosts knows the throwaway sshd. */
const asOperator = (home: string, args: string[]) => fleetls(args, { cwd: home, env: { HOME: home } });

describe('fleetls with an Ansible inventory', () => {
  let sshd: Sshd;
  let tree: string;
  let home: string;

  before(async () => {
    sshd = await startSshd();
    tree = join(sshd.dir, 'ansible-tree');
    makeTree(tree, { 'nginx/access.log': 'x'.repeat(20), syslog: 'x'.repeat(5) });
    home = join(sshd.dir, 'operator');
    mkdirSync(join(home, '.ssh'), { recursive: true });
    writeFileSync(join(home, '.ssh', 'known_hosts'), readFileSync(sshd.knownHostsFile));
  });
  after(async () => {
    await sshd?.stop();
  });

  it('ls @webservers:PATH lists each host of the group over SSH, with host vars as labels', async () => {
    const inventory = join(sshd.dir, 'hosts.ini');
    const ssh = `ansible_host=127.0.0.1 ansible_port=${sshd.port} ansible_user=${sshd.user} ansible_ssh_private_key_file=${sshd.identityFile}`;
    writeFileSync(
      inventory,
      ['[webservers]', `web-a ${ssh} dc=fra`, `web-b ${ssh} dc=ams`, '[dbservers]', `db-a ${ssh}`, ''].join('\n'),
    );
    const r = await asOperator(home, [
      'ls',
      `@webservers:${tree}`,
      '--inventory',
      inventory,
      '--max-depth',
      '1',
      '--json',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const answer = JSON.parse(r.stdout);
    assert.deepEqual(
      answer.hosts.map((h: { host: string; status: string; via: string }) => [h.host, h.status, h.via]),
      [
        ['web-a', 'ok', 'ssh'],
        ['web-b', 'ok', 'ssh'],
      ],
    );
    const hosts = await asOperator(home, ['hosts', '@webservers', '--inventory', inventory, '--json']);
    assert.equal(hosts.code, 0, hosts.stderr);
    assert.match(hosts.stdout, /"dc":\s*"fra"/);
  });

  it('an inventory plugin config is refused, naming the plugin', async () => {
    const inventory = join(sshd.dir, 'aws_ec2.yml');
    writeFileSync(inventory, 'plugin: amazon.aws.aws_ec2\nregions: [eu-west-1]\n');
    const r = await asOperator(home, ['hosts', '--inventory', inventory]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /inventory plugin 'amazon\.aws\.aws_ec2' is not supported/);
  });
});
