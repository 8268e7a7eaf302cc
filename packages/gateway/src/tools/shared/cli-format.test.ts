import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ANSI_STYLE,
  formatFileTable,
  formatHosts,
  formatStat,
  formatTree,
  NO_STYLE,
  pickStyle,
  shortTime,
} from './cli-format.js';

describe('formatTree', () => {
  it('draws nested directories, hidden counts and several hosts', () => {
    const entries = [
      { host: 'a', path: 'd', type: 'directory' },
      { host: 'a', path: 'd/x', type: 'file', size: 2048 },
      { host: 'a', path: 'd/e', type: 'directory' },
      { host: 'a', path: 'd/e/y', type: 'file', size: 1 },
      { host: 'a', path: 'd', type: 'warning', hidden: { shown: 2, total: 5 } },
      { host: 'a', path: 'z', type: 'symlink', size: 1, link_target: 'd' },
      { host: 'b', path: 'locked', type: 'directory', error: { code: 'DENIED', detail: 'permission denied' } },
    ];
    assert.deepEqual(formatTree(entries, { root: '/r', showHost: true, style: NO_STYLE }), [
      'a:/r',
      '├── d/',
      '│   ├── x  2.0 KiB',
      '│   ├── e/',
      '│   │   └── y  1 B',
      '│   └── … 3 more (showing 2 of 5)',
      '└── z -> d  1 B',
      'b:/r',
      '└── locked/ [DENIED] permission denied',
    ]);
  });

  it('shows an error on the path itself', () => {
    const entries = [
      { host: 'a', path: '', type: 'directory', error: { code: 'NOT_FOUND', detail: 'path does not exist' } },
    ];
    assert.deepEqual(formatTree(entries, { root: '/r', showHost: false, style: NO_STYLE }), [
      '/r',
      '└── [NOT_FOUND] path does not exist',
    ]);
  });
});

describe('formatFileTable', () => {
  it('aligns columns and keeps colour out of the widths', () => {
    const items = [
      {
        host: 'h1',
        path: 'big.iso',
        name: 'big.iso',
        type: 'file',
        size: 5 * 1024 ** 3,
        modified: '2024-01-02T03:04:05+01:00',
      },
      { host: 'h22', path: 'sub', name: 'sub', type: 'directory', size: 4096, modified: '2024-01-02T03:04:05+01:00' },
      {
        host: 'h1',
        path: 'l',
        name: 'l',
        type: 'symlink',
        size: 3,
        modified: '2024-01-02T03:04:05+01:00',
        link_target: 'big.iso',
      },
    ];
    assert.deepEqual(formatFileTable(items, { showHost: true, style: NO_STYLE }), [
      'TYPE          SIZE  MODIFIED          HOST  PATH',
      'file       5.0 GiB  2024-01-02 03:04  h1    big.iso',
      'directory  4.0 KiB  2024-01-02 03:04  h22   sub',
      'symlink        3 B  2024-01-02 03:04  h1    l -> big.iso',
    ]);
    const coloured = formatFileTable(items, { showHost: false, style: ANSI_STYLE });
    assert.equal(coloured[2], 'directory  4.0 KiB  2024-01-02 03:04  \x1b[1;34msub\x1b[0m');
  });
});

describe('formatStat and formatHosts', () => {
  it('renders a stat block', () => {
    const lines = formatStat(
      [
        {
          host: 'h',
          path: '/etc/passwd',
          type: 'file',
          size: 2154,
          mode: '0644',
          permissions: '-rw-r--r--',
          owner: 'root',
          group: 'root',
          uid: 0,
          gid: 0,
          modified: 'M',
          accessed: 'A',
          changed: 'C',
          inode: 12,
          nlink: 1,
        },
      ],
      { showHost: false, style: NO_STYLE },
    );
    assert.deepEqual(lines, [
      '/etc/passwd',
      '  type     file',
      '  size     2.1 KiB (2154 bytes)',
      '  mode     0644 (-rw-r--r--)',
      '  owner    root (0)',
      '  group    root (0)',
      '  modified M',
      '  accessed A',
      '  changed  C',
      '  inode    12',
      '  links    1',
    ]);
  });

  it('renders the host table, with check columns (a failure is said once, on stderr)', () => {
    const lines = formatHosts(
      [
        {
          host: 'web-1',
          transport: 'agent',
          address: '10.0.0.5:7443',
          labels: { role: 'web' },
          groups: ['prod'],
          ssh_fallback: true,
          status: 'ok',
          via: 'agent',
          version: '0.1.0',
          elapsed_ms: 4,
          cert_expires_in_days: 396,
        },
        {
          host: 'db',
          transport: 'ssh',
          address: 'db',
          labels: {},
          groups: [],
          ssh_fallback: false,
          status: 'auth',
          via: 'ssh',
          elapsed_ms: 12,
          message: 'host key changed',
        },
      ],
      { checked: true, style: NO_STYLE },
    );
    assert.deepEqual(lines, [
      'HOST   TRANSPORT  ADDRESS        LABELS    GROUPS  STATUS  VIA    VERSION  CERT   ELAPSED',
      'web-1  agent|ssh  10.0.0.5:7443  role=web  prod    ok      agent  0.1.0    396 d     4 ms',
      'db     ssh        db                               auth    ssh                      12 ms',
    ]);
  });
});

describe('style helpers', () => {
  it('colours only on a TTY without NO_COLOR', () => {
    assert.equal(pickStyle(true, {}), ANSI_STYLE);
    assert.equal(pickStyle(false, {}), NO_STYLE);
    assert.equal(pickStyle(true, { NO_COLOR: '1' }), NO_STYLE);
  });
  it('shortens timestamps', () => {
    assert.equal(shortTime('2023-11-15T03:58:21+05:45'), '2023-11-15 03:58');
    assert.equal(shortTime(undefined), '');
  });
});
