// The agent's version, from its package.json (read once at load).
import { packageVersion } from '@fleetls/runtime/version';

export const AGENT_VERSION: string = packageVersion(import.meta.url);
