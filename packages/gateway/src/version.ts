// The gateway's version, from its package.json (read once at load).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
export const GATEWAY_VERSION: string = (require('../package.json') as { version: string }).version;
