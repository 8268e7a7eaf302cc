// Walk helpers for tests: draining a backend's walk, and the agent's answer without the
// agent process (the reference the SSH backends are compared with).
import { execFileSync } from 'node:child_process';
import type { Row, WalkRequest, WalkSummary } from '@fleetls/core';
import type { Sshd } from './sshd.js';

/** Every row of a backend's walk, and its summary. */
export async function drain(
  gen: AsyncGenerator<Row[], WalkSummary, void>,
): Promise<{ rows: Row[]; summary: WalkSummary }> {
  const rows: Row[] = [];
  for (;;) {
    const step = await gen.next();
    if (step.done) return { rows, summary: step.value };
    rows.push(...step.value);
  }
}

/** The paths of the rows that are entries, sorted. */
export function entryPaths(rows: Row[]): string[] {
  return rows.flatMap((r) => (r.kind === 'entry' ? [r.entry.path.toString()] : [])).sort();
}

/** Each row as one line: `path type` (`path [CODE]` for an entry that failed), or `truncated dir`. */
export function rowLines(rows: Row[]): string[] {
  return rows.flatMap((r) =>
    r.kind === 'entry'
      ? [`${r.entry.path.toString()} ${r.entry.error ? `[${r.entry.error.code}]` : r.entry.type}`]
      : [`truncated ${r.truncation.dir.toString()}`],
  );
}

/**
 * core walk() over the agent's fs source, in a child process running as the sshd login
 * user, so unreadable directories are unreadable here too.
 */
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
