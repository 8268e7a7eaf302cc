// A package's version, from the package.json beside its dist/ (read once, at load).
import { createRequire } from 'node:module';

/** `moduleUrl`: import.meta.url of a module in the package's dist/. */
export function packageVersion(moduleUrl: string): string {
  return (createRequire(moduleUrl)('../package.json') as { version: string }).version;
}
