// The UTC offset of a time, for an entry's mtime. It changes at most a few times a year, on
// quarter-hour boundaries at worst: cached per 15-minute bucket instead of asking the time
// zone database per entry. The cache is direct-mapped (slot = bucket mod 65536, ~390 KiB):
// one array read per entry, no hashing. Made at the first entry, not at load: an agent that
// has not walked yet holds none of it (issue 39's idle RSS).
const OFFSET_SLOTS = 1 << 16;
const NO_BUCKET = -0x80000000;
let offsetBucket: Int32Array | undefined;
let offsetMin: Int16Array;

function offsetOfBucket(bucket: number): number {
  return -new Date(bucket * 900_000).getTimezoneOffset() || 0;
}

/** The cache itself (made now if not yet), for the native module to read (fsat.c fillOffsets): slot → bucket, slot → minutes. */
export function utcOffsetCache(): { buckets: Int32Array; minutes: Int16Array } {
  if (offsetBucket === undefined) {
    offsetBucket = new Int32Array(OFFSET_SLOTS).fill(NO_BUCKET);
    offsetMin = new Int16Array(OFFSET_SLOTS);
  }
  return { buckets: offsetBucket, minutes: offsetMin };
}

/** Minutes east of UTC at `sec` (seconds since the epoch), in this process's time zone. */
export function utcOffsetAt(sec: number): number {
  const bucket = Math.floor(sec / 900);
  // Outside int32 (a time past the year 63,000 or so): not cached.
  if (!(bucket > NO_BUCKET && bucket <= 0x7fffffff)) return offsetOfBucket(bucket);
  if (offsetBucket === undefined) utcOffsetCache();
  const slot = bucket & (OFFSET_SLOTS - 1);
  if ((offsetBucket as Int32Array)[slot] === bucket) return offsetMin[slot];
  const off = offsetOfBucket(bucket);
  (offsetBucket as Int32Array)[slot] = bucket;
  offsetMin[slot] = off;
  return off;
}
