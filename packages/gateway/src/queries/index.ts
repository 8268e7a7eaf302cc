// One function per MCP tool; the CLI calls the same ones.
export type { HostStatusJson, QueryContext, QueryResult } from './common.js';
export { type ListDirectoriesAnswer, listDirectories } from './list-directories.js';
export { type ListDirectoryAnswer, listDirectory } from './list-directory.js';
export { type ListFilesAnswer, listFiles } from './list-files.js';
export { type ListHostsAnswer, listHosts } from './list-hosts.js';
export * as schemas from './schemas.js';
export { type StatAnswer, statPaths } from './stat.js';
