// @fleetls/core: pure domain logic shared by the agent, the SSH backend and the gateway.
// No I/O, no gRPC, no ssh2, no MCP.

export * from './budget.js';
export * from './cursor.js';
export {
  COMPARE_ATTRIBUTES,
  type CompareAttribute,
  DEFAULT_COMPARE,
  type DiffDifference,
  type DiffGroup,
  type DiffValue,
  type DirDiff,
  diffListings,
  type HostTree,
  parseCompare,
} from './dir-diff.js';
export {
  DU_BAR_WIDTH,
  DU_MAX_DEPTH,
  type DuRow,
  type DuTotal,
  duBar,
  duSizeText,
  parseDuDepth,
  renderDuTable,
  renderDuTotals,
} from './disk-usage.js';
export * from './display.js';
export * from './errors.js';
export { codeFromErrno, ERRNO_TABLE, entryErrorFromErrno, errnoOf } from './errors-errno.js';
export { codeFromSshError, errnoFromSftp, SFTP_STATUS_ERRNO, SSH_LEVEL_TABLE } from './errors-ssh.js';
export { fleetErrorFromTls, type PeerCertificate, TLS_TABLE } from './errors-tls.js';
export * from './file-mode.js';
export {
  buildDirSizeCommand,
  buildStatCommand,
  buildWalkCommand,
  exitFromStderr,
  FIELDS,
  type FindArgsOptions,
  findArgs,
  findEnv,
  PROBE_COMMAND,
  type ProbeResult,
  parseProbe,
  shellQuote,
  stderrMessage,
  timedOut,
  validateRemotePath,
  type WalkCommandOptions,
} from './find-command.js';
export {
  checkFindFilter,
  compileFindFilter,
  FILTER_FEATURES,
  type FilterFeature,
  type FindFilter,
  type FindFilterArgs,
  filterFeatures,
  filterNeedsStat,
  parseFindFilterArgs,
  withoutFeatures,
} from './find-filter.js';
export { filterExactRemotely, filterPredicates } from './find-filter-predicates.js';
export { addDropped, type RankDropped, rankArgs, remoteRankable } from './find-rank.js';
export {
  collectListing,
  type FindEnd,
  type FindItem,
  type FindListing,
  FindRecordParser,
  finishFindSummary,
  parseDirSizes,
  parseStat,
  pathError,
  rootErrorEntry,
} from './find-records.js';
export * from './glob.js';
export * from './host-backend.js';
export { type IdSpec, MAX_ID, parseIdSpec } from './id-spec.js';
export * from './limits.js';
export { isLoopback } from './loopback.js';
export * from './memory-source.js';
export * from './merge.js';
export {
  type CallObservation,
  NOOP_OBSERVER,
  type Observer,
  type WalkCounts,
  type WalkObservation,
  WalkTally,
} from './observer.js';
export * from './order.js';
export * from './path-policy.js';
export {
  PERM_HELP,
  PERM_MATCHES,
  type PermMatch,
  type PermSpec,
  parsePerm,
  permArgument,
  permMatches,
} from './perm-spec.js';
export { PSEUDO_FS_TYPES, prunedError } from './pseudo-fs.js';
export { diffDifferenceLines, diffGroupLines } from './render-diff.js';
export * from './render-table.js';
export * from './render-tree.js';
export { parseSize, SIZE_HELP } from './size-spec.js';
export { compareInstant, type Instant, parseTime, TIME_HELP } from './time-spec.js';
export * from './token-estimate.js';
export * from './top-n.js';
export * from './types.js';
export * from './walk.js';
export type { ResumePoint } from './walk-resume.js';
export { compareResumePoints, resumePointOf } from './walk-resume.js';
