// Owner and group names for the listing's uid and gid, as `ls -l` shows them: the names of
// each host's own /etc/passwd and /etc/group (the same uid is another user on another host),
// its number where the host has no name for it. A walk's entries carry ids only; the Stat of
// one entry carries its owner's and group's names as its agent resolved them, so for each id
// of a host not known yet one entry with that id is stat'ed (one call for every host that
// has that path), and the table redraws as names arrive. Ids show until then.

interface StatJson {
  results?: { host: string; stat?: { owner?: string; group?: string; entry?: { uid?: number; gid?: number } } }[];
}

/** One entry of the listing, where its ids can be asked about. */
export interface OwnedEntry {
  host: string;
  /** The entry's full path, undefined when its name is not UTF-8 (no path string names it). */
  path: string | undefined;
  uid: number;
  gid: number;
  /** A symlink: stat'ed, its target's ids might answer instead; asked about last. */
  link: boolean;
}

/** Stat calls one batch of unknown ids may make, at most: a listing of many owners fills in over redraws. */
const MAX_CALLS = 16;

export class OwnerNames {
  private readonly users = new Map<string, string>();
  private readonly groups = new Map<string, string>();
  /** host + id already asked about (answered or not): never asked twice. */
  private readonly askedUsers = new Set<string>();
  private readonly askedGroups = new Set<string>();

  constructor(
    private readonly stat: (host: string, path: string) => Promise<StatJson>,
    private readonly changed: () => void,
  ) {}

  /** `owner:group` as ls -l names them on that host, ids until the names are known. */
  text(host: string, uid: number, gid: number): string {
    return `${this.users.get(key(host, uid)) ?? uid}:${this.groups.get(key(host, gid)) ?? gid}`;
  }

  /** Asks for the names of the ids in `entries` not asked about yet; `changed` runs when some arrive. */
  resolve(entries: OwnedEntry[]): void {
    // path → the hosts to stat it on: an entry that covers an unknown uid or gid of its host.
    const wanted = new Map<string, Set<string>>();
    const ordered = [...entries.filter((e) => !e.link), ...entries.filter((e) => e.link)];
    for (const e of ordered) {
      if (e.path === undefined) continue;
      const u = key(e.host, e.uid);
      const g = key(e.host, e.gid);
      const needUser = !this.askedUsers.has(u);
      const needGroup = !this.askedGroups.has(g);
      if (!needUser && !needGroup) continue;
      if (!wanted.has(e.path) && wanted.size >= MAX_CALLS) continue;
      this.askedUsers.add(u);
      this.askedGroups.add(g);
      const hosts = wanted.get(e.path) ?? new Set<string>();
      hosts.add(e.host);
      wanted.set(e.path, hosts);
    }
    for (const [path, hosts] of wanted) {
      for (const selector of selectors([...hosts])) {
        this.stat(selector, path).then(
          (res) => this.learn(res),
          () => undefined, // ids stay: the listing itself says what failed
        );
      }
    }
  }

  private learn(res: StatJson): void {
    let added = false;
    for (const r of res.results ?? []) {
      const s = r.stat;
      if (!s) continue;
      // Connect JSON leaves 0 out: root's ids are absent.
      const uid = s.entry?.uid ?? 0;
      const gid = s.entry?.gid ?? 0;
      if (s.owner && s.owner !== String(uid) && !this.users.has(key(r.host, uid))) {
        this.users.set(key(r.host, uid), s.owner);
        added = true;
      }
      if (s.group && s.group !== String(gid) && !this.groups.has(key(r.host, gid))) {
        this.groups.set(key(r.host, gid), s.group);
        added = true;
      }
    }
    if (added) this.changed();
  }
}

const key = (host: string, id: number) => `${host}\u0000${id}`;

/** A selector is at most 4,096 characters (tools/schemas.ts): a long list of hosts goes in several. */
const SELECTOR_MAX = 4000;

/** `hosts` as comma lists of at most SELECTOR_MAX characters each. */
export function selectors(hosts: string[]): string[] {
  const out: string[] = [];
  let cur = '';
  for (const host of hosts) {
    if (cur && cur.length + 1 + host.length > SELECTOR_MAX) {
      out.push(cur);
      cur = '';
    }
    cur = cur ? `${cur},${host}` : host;
  }
  if (cur) out.push(cur);
  return out;
}
