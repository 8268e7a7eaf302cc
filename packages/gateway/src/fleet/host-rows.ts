// What the tools keep of each host's walk: its rows, the caps that bit and the notes on how
// it was listed (tools/shared/host-walks.ts makes them; the page store and the presenters read them).
// Here in fleet/, below the tools, because the page store keeps them.
import type { Entry, Truncation } from '@fleetls/core';

/** A cap that bit on one host's walk. */
export interface HostTruncation {
  host: string;
  truncation: Truncation;
}

/** Something about how a host was listed that limits its rows. */
export interface HostNote {
  host: string;
  note: string;
}

export interface HostEntry {
  host: string;
  entry: Entry;
}
