// @fleetls/core: pure domain logic shared by the agent, the SSH backend and the gateway.
// No I/O, no gRPC, no ssh2, no MCP. Symbols above are the domain's vocabulary: types, errors,
// the backend seam, limits, order, the walk engine, merging and paging.

// Symbols below are the parts each route or face builds on: renderers, the find command and
// its parsers, filters, error tables per platform.
export {
  COMPARE_ATTRIBUTES,
  type CompareAttribute,
  DEFAULT_COMPARE,
  type DiffDifference,
  type DiffGroup,
  type DiffValue,
  type DirDiff,
  DistinctListings,
  diffHosts,
  diffListings,
  type HostTree,
  type KeptListing,
  type ListedHost,
  parseCompare,
} from './diff/dir-diff.js';
export { diffDifferenceLines, diffGroupLine, diffGroupLines, valueHolders } from './diff/render-diff.js';
export type { HostBackend, OnEntriesSeen } from './domain/host-backend.js';
export {
  type CallObservation,
  NOOP_OBSERVER,
  type Observer,
  type WalkCounts,
  type WalkObservation,
  WalkTally,
} from './domain/observer.js';
export {
  type DirSize,
  ENTRY_ERROR_CODES,
  ENTRY_TYPES,
  type Entry,
  type EntryError,
  type EntryErrorCode,
  type EntryType,
  HOST_STATUSES,
  type HostStatus,
  type HostStatusCode,
  isVia,
  ORDER_BY,
  type OrderBy,
  type RankCut,
  type RawEntry,
  RESUME_ROWS,
  type ResumeRow,
  type Row,
  type Shape,
  SORT_DIRECTIONS,
  type SortDirection,
  type StatInfo,
  TRUNCATION_REASONS,
  type TreeSource,
  type Truncation,
  type TruncationReason,
  VIAS,
  type Via,
  type WalkRequest,
  type WalkSummary,
} from './domain/types.js';
export {
  DU_BAR_WIDTH,
  DU_MAX_DEPTH,
  type DuRow,
  type DuTotal,
  type DuTotalSize,
  type DuWalkRows,
  duBar,
  duPartialNote,
  duSizeText,
  duTotalFromListing,
  parseDuDepth,
  renderDuTable,
  renderDuTotals,
} from './du/disk-usage.js';
export { parseDirSizes } from './du/find-dir-sizes.js';
export { codeFromErrno, ERRNO_TABLE, entryErrorFromErrno, errnoFromMessage, errnoOf } from './errors/errno.js';
export {
  CODES,
  type Code,
  codeFromEntryError,
  FleetError,
  fleetErrorAt,
  hostStatusFromCode,
  invalidArgument,
} from './errors/errors.js';
export { codeFromSshError, errnoFromSftp, SFTP_STATUS_ERRNO, SSH_LEVEL_TABLE, sshCallFailure } from './errors/ssh.js';
export { fleetErrorFromTls, type PeerCertificate, TLS_TABLE } from './errors/tls.js';
export { type IdSpec, MAX_ID, parseIdSpec } from './filter/id-spec.js';
export {
  PERM_HELP,
  PERM_MATCHES,
  type PermMatch,
  type PermSpec,
  parsePerm,
  permArgument,
  permMatches,
} from './filter/perm-spec.js';
export { parseSize, SIZE_HELP } from './filter/size-spec.js';
export { compareInstant, type Instant, parseTime, TIME_HELP } from './filter/time-spec.js';
export {
  buildDirSizeCommand,
  buildRestatCommand,
  buildStatCommand,
  buildWalkCommand,
  FIELDS,
  type FindArgsOptions,
  findArgs,
  findEnv,
  PROBE_COMMAND,
  type ProbeResult,
  parseProbe,
  type RestatForm,
  splitOf,
  type WalkCommandOptions,
} from './find/command.js';
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
} from './find/filter.js';
export { filterExactRemotely, filterPredicates } from './find/filter-predicates.js';
export { addDropped, type RankDropped, rankArgs, remoteRankable } from './find/rank.js';
export {
  collectListing,
  type FindEnd,
  type FindItem,
  type FindListing,
  FindRecordParser,
  finishFindSummary,
  parseRestat,
  restatPath,
} from './find/records.js';
export {
  exitFromStderr,
  shellQuote,
  stderrMessage,
  timedOut,
  timeoutSeconds,
  validateRemotePath,
} from './find/remote-shell.js';
export { parseStat, pathError, rootErrorEntry } from './find/stat.js';
export { MAX_GLOB_ALTERNATIVES } from './glob/braces.js';
export { compileGlob, compileGlobs, MAX_GLOB_LENGTH } from './glob/glob.js';
export {
  DEFAULT_MAX_ANSWER_BYTES,
  DEFAULT_MAX_ANSWER_TOKENS,
  fitRows,
  type RowFit,
} from './limits/budget.js';
export {
  assertRankedHold,
  type Ceilings,
  DEFAULT_CEILINGS,
  MAX_AFTER_BYTES,
  MAX_RANKED_HELD,
  resolveWalkRequest,
  SHAPES,
  WALK_DEFAULTS,
  type WalkRequestInput,
} from './limits/limits.js';
export { estimateTokens } from './limits/token-estimate.js';
export { mergeSortedArrays } from './order/merge.js';
export {
  baseName,
  compareNames,
  comparePaths,
  entryComparator,
  hostEntryComparator,
  nameKey,
} from './order/order.js';
export { TopN } from './order/top-n.js';
export {
  confinedResolution,
  isBelow,
  MAX_SYMLINKS,
  type NameKind,
  OutsideRoots,
  pathComponents,
  type ResolveStep,
} from './policy/confined-resolution.js';
export { hostHeaderAllowed, hostOfHostHeader, isLoopback } from './policy/loopback.js';
export {
  assertAllowed,
  isInside,
  MAX_PATH_BYTES,
  normalizeRequestPath,
} from './policy/path-policy.js';
export { PSEUDO_FS_TYPES, prunedError } from './policy/pseudo-fs.js';
export {
  displayPath,
  formatMtime,
  humanSize,
  modeString,
  octalMode,
  parseDisplayPath,
} from './render/display.js';
export { typeFromMode } from './render/file-mode.js';
export {
  type AlignedOptions,
  type Cell,
  renderAligned,
  renderTsv,
  type TableRow,
  tsvLine,
} from './render/table.js';
export {
  renderTree,
  type TreeRenderOptions,
  treeEntryLine,
  treeTruncationLine,
} from './render/tree-lines.js';
export {
  decodeCursor,
  decodePathCursor,
  decodeTreeCursor,
  encodeCursor,
  encodePathCursor,
  encodeTreeCursor,
  fnv1a64,
  MAX_PATH_CURSOR_LENGTH,
  MAX_TREE_CURSOR_LENGTH,
  type PageCursor,
  type PathCursor,
  queryFingerprint,
  type TreeCursor,
} from './walk/cursor.js';
export {
  MemorySource,
  type MemorySourceExtras,
  pathKey,
  type SourceRecord,
} from './walk/memory-source.js';
export type { ResumePoint } from './walk/resume.js';
export { compareResumePoints, resumePointOf } from './walk/resume.js';
export type {
  Frame,
  Mark,
  PieceCounts,
  PieceRest,
  PieceResult,
  PlainFrame,
  SplitFrame,
  SplitPiece,
  Splitter,
  TreeSplitter,
} from './walk/split.js';
export { frameFromPlain, frameToPlain, pieceCounts, splitStep } from './walk/split.js';
export {
  emptySummary,
  errorRawEntry,
  joinPath,
  lazyRawEntry,
  type RankedPart,
  type RankedShare,
  rankShare,
  toEntry,
  treeCompare,
  WalkState,
  walk,
  walkPiece,
} from './walk/walk.js';
