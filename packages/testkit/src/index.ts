// @fleetls/testkit: what fleetls's tests share, with no fleetls code in it: declared trees
// and waiting on conditions instead of fixed sleeps, and one way to start a process.

export {
  killOnExit,
  type Launched,
  type LaunchOptions,
  launch,
  READY_TIMEOUT_MS,
  run,
} from './launch.js';
export { freePort } from './ports.js';
export {
  type EntryMeta,
  type FileNode,
  makeTree,
  range,
  type TreeNode,
  type TreeOptions,
  type TreeSpec,
} from './tree.js';
export { type WaitOptions, waitFor } from './wait-for.js';
