/** Thrown from inside a listing when the walk was cancelled. */
export class WalkCancelled extends Error {
  override name = 'WalkCancelled';
}
