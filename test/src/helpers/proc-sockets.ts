// What a process listens on, read from /proc: the proof that an agent holds no TCP port.
import * as fs from 'node:fs';

/** Inodes of the TCP sockets in LISTEN state (/proc/net/tcp{,6}, state 0A). */
export function tcpListenInodes(): Set<string> {
  const out = new Set<string>();
  for (const f of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of fs.readFileSync(f, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols[3] === '0A') out.add(cols[9]);
    }
  }
  return out;
}

/** Inodes of every socket the process holds open. */
export function socketInodes(pid: number): string[] {
  return fs
    .readdirSync(`/proc/${pid}/fd`)
    .map((fd) => {
      try {
        return fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        return '';
      }
    })
    .flatMap((l) => /^socket:\[(\d+)\]$/.exec(l)?.[1] ?? []);
}

/** The TCP ports the process listens on, as inodes (empty: none). */
export function tcpListenersOf(pid: number): string[] {
  const listening = tcpListenInodes();
  return socketInodes(pid).filter((i) => listening.has(i));
}
