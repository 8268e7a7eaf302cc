// @fleetls/testkit: what fleetls's tests share, with no fleetls code in it: declared trees
// and waiting on conditions instead of fixed sleeps, one way to start a process, and a
// process that sees another tree at the same path.

export {
  killOnExit,
  type Launched,
  type LaunchOptions,
  launch,
  READY_TIMEOUT_MS,
  run,
} from './processes/launch.js';
export { freePort } from './processes/ports.js';
export { type WaitOptions, waitFor } from './processes/wait-for.js';
export { bindMountedOver } from './trees/mount-namespace.js';
export {
  type EntryMeta,
  type FileNode,
  makeTree,
  range,
  type TreeNode,
  type TreeOptions,
  type TreeSpec,
} from './trees/tree.js';
