// Which inventory file applies, without reading it: kept apart from the parsers so that a
// fleet of localhost alone (no file) starts without loading yaml.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const DEFAULT_INVENTORY_FILE = 'fleetls.yaml';

export interface InventoryLocation {
  /** `--inventory`. */
  inventoryPath?: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

/**
 * Which inventory file applies: `--inventory`, else `$FLEETLS_INVENTORY` (set but empty =
 * none), else `./fleetls.yaml` when it exists. undefined = no inventory.
 */
export function resolveInventoryPath(loc: InventoryLocation): string | undefined {
  const cwd = loc.cwd ?? process.cwd();
  if (loc.inventoryPath !== undefined && loc.inventoryPath !== '') return resolve(cwd, loc.inventoryPath);
  const env = loc.env ?? process.env;
  const fromEnv = env.FLEETLS_INVENTORY;
  if (fromEnv !== undefined) return fromEnv === '' ? undefined : resolve(cwd, fromEnv);
  const local = join(cwd, DEFAULT_INVENTORY_FILE);
  return existsSync(local) ? local : undefined;
}
