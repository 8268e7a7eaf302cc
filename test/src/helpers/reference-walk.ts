// The agent's answer without the agent process: core walk() over the agent's fs source,
// in a child process running as the sshd login user, so unreadable directories are
// unreadable here too. The SSH backends are compared with it.
import { execFileSync } from 'node:child_process';
import type { WalkRequest } from '@fleetls/core';
import type { Sshd } from './sshd.js';

export function agentWalksAsUser(sshd: Sshd, requests: WalkRequest[]): unknown[] {
  const script = `
    import { realpathSync } from 'node:fs';
    import { walk } from '@fleetls/core';
    import { createFsSource } from '@fleetls/agent';
    const reqs = JSON.parse(process.argv[1]);
    const out = reqs.map((r) => {
      // As the agent service does: a symlinked path is walked at its real path.
      try { r = { ...r, path: realpathSync(r.path) }; } catch {}
      const gen = walk(r, createFsSource(r.path, { followSymlinks: r.followSymlinks, allowedRoots: ['/'] }), Date.now);
      const rows = [];
      let s = gen.next();
      while (!s.done) { rows.push(s.value); s = gen.next(); }
      return { rows, summary: { ...s.value, elapsedMs: 0 } };
    });
    process.stdout.write(JSON.stringify(out));
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(requests)], {
    uid: sshd.uid,
    gid: sshd.gid,
    // The test package's directory, where @fleetls/* resolve.
    cwd: new URL('../..', import.meta.url).pathname,
    maxBuffer: 1 << 28,
    encoding: 'utf8',
  });
  return JSON.parse(out);
}
