// The types of the find-like filters, apart from their parsers: domain/types.ts (imported by nearly
// every module) names FindFilter, and this file imports nothing, so no import cycle runs
// through the vocabulary.

/** Every filter a request can carry, by its argument (and wire) name. */
export const FILTER_FEATURES = [
  'min_size',
  'max_size',
  'modified_after',
  'modified_before',
  'owner',
  'group',
  'perm',
  'name',
] as const;
export type FilterFeature = (typeof FILTER_FEATURES)[number];

export interface Instant {
  sec: number;
  nsec: number;
}

export type IdSpec = { id: number } | { name: string };

export const PERM_MATCHES = ['exact', 'all', 'any'] as const;
export type PermMatch = (typeof PERM_MATCHES)[number];

export interface PermSpec {
  match: PermMatch;
  /** Permission bits, within 07777. */
  mode: number;
}

/** Filters after parsing; an absent field does not filter. Bounds on size are inclusive, on time strict. */
export interface FindFilter {
  minSize?: number;
  maxSize?: number;
  /** mtime strictly after (find's -newermt). */
  modifiedAfter?: Instant;
  /** mtime strictly before. */
  modifiedBefore?: Instant;
  owner?: IdSpec;
  group?: IdSpec;
  perm?: PermSpec;
  /** A glob on the base name (core glob syntax, no '/'). */
  name?: string;
}
