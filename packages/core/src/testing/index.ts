// @fleetls/core/testing: fixtures for tests of this package and the packages above it, not part
// of the product's surface. Pure, as the rest of core.
export { entryAt, entryRow, recordAt, rootAt } from './entries.js';
export { HOSTILE_NAMES } from './hostile-names.js';
export { runWalk, walkRequest } from './walks.js';
