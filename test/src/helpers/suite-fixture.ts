// A describe block's fixture in one line: started by a before hook, stopped by an after hook
// (if it started), read by the block's tests through a getter.
import { after, before } from 'node:test';

/** `start`s the fixture before the block's tests and `stop`s it after them; the getter gives it. */
export function suiteFixture<T>(start: () => Promise<T>, stop: (fixture: T) => Promise<unknown>): () => T {
  let fixture: T | undefined;
  before(async () => {
    fixture = await start();
  });
  after(async () => {
    if (fixture !== undefined) await stop(fixture);
  });
  return () => {
    if (fixture === undefined) throw new Error('the fixture is read before its before hook started it');
    return fixture;
  };
}
