// A process that sees another tree at the same path: a bind mount in a mount namespace of its
// own, so the rest of the machine keeps the original. The differing host of diff_directory's
// tests and bench. Needs root and util-linux's unshare.

/**
 * The command prefix that runs the command after it in a private mount namespace where `other`
 * is bind-mounted over `path`.
 */
export function bindMountedOver(other: string, path: string): string[] {
  return [
    'unshare',
    '-m',
    '--propagation',
    'private',
    'sh',
    '-c',
    'mount --bind "$1" "$2" && shift 2 && exec "$@"',
    'sh',
    other,
    path,
  ];
}
