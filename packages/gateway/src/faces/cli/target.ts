// `SELECTOR:PATH`, the CLI's one positional argument: which hosts and which absolute path.
import { invalidArgument } from '@fleetls/core';

/**
 * `web-*:/var/log` → { selector: 'web-*', path: '/var/log' }. The path is absolute, so the
 * split is at the first ":/" (selectors like `label:role=web` hold colons of their own).
 * A bare absolute path means localhost.
 */
export function parseTarget(arg: string, argName = 'SELECTOR:PATH'): { selector: string; path: string } {
  if (arg.startsWith('/')) return { selector: 'localhost', path: arg };
  const at = arg.indexOf(':/');
  if (at < 0) {
    throw invalidArgument(
      `${argName}: expected hosts and an absolute path, as localhost:/etc or web-*:/var/log, got '${arg}'`,
    );
  }
  const selector = arg.slice(0, at);
  if (selector.trim() === '') throw invalidArgument(`${argName}: the host selector before ':' is empty in '${arg}'`);
  return { selector, path: arg.slice(at + 1) };
}
