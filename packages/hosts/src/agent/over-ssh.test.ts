import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { explainRefusal } from './over-ssh.js';

const SOCK = '/run/fleetls/agent.sock';

describe('explainRefusal', () => {
  const cases: [string, string, RegExp][] = [
    [
      'absent',
      'absent\n\nops\nops\n',
      /no such socket visible to SSH user ops \(is fleetls-agent running with listen: unix:\/run/,
    ],
    ['not a socket', 'notsocket\n-rw-r--r-- 1 root root 0 x y\nops\nops\n', /exists but is not a socket$/],
    [
      'denied',
      'denied\nsrw-rw---- 1 fleetls fleetls 0 Dec 1 08:00 /run/fleetls/agent.sock\nops\nops adm\n',
      /owned by fleetls:fleetls \(srw-rw----\), and SSH user ops \(groups: ops adm\) may not connect to it: add ops to group fleetls$/,
    ],
    ['stale', 'usable\nsrw-rw---- 1 a b 0 x\nops\nops b\nstale\n', /nothing listens on it \(a stale socket/],
    [
      'forwarding off',
      'usable\nsrw-rw---- 1 a b 0 x\nops\nops b\nlistening\n',
      /sshd refuses stream forwarding: set AllowStreamLocalForwarding yes/,
    ],
    [
      'no python3 on the host',
      'usable\nsrw-rw---- 1 a b 0 x\nops\nops b\n',
      /AllowStreamLocalForwarding no, DisableForwarding.*or nothing listens/,
    ],
    [
      'no answer at all',
      '',
      /sshd did not open a stream to it \(AllowStreamLocalForwarding no\? no socket\? no permission\?\)/,
    ],
    ['garbage', '\u0000\xff\n\n\n', /sshd did not open a stream to it/],
    [
      'denied, ls failed',
      'denied\n\nops\n\n',
      /: SSH user ops \(groups: none\) may not connect to it: add ops to the socket's group$/,
    ],
  ];
  for (const [name, out, want] of cases) {
    it(name, () => {
      const msg = explainRefusal(SOCK, out);
      assert.ok(msg.startsWith(`agent socket ${SOCK}: `), msg);
      assert.match(msg, want);
    });
  }
});
