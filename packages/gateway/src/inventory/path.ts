// Which inventory file applies, without reading it: kept apart from the parsers so that a
// fleet of localhost alone (no file) starts without loading yaml.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const DEFAULT_INVENTORY_FILE = 'fleetls.yaml';
/** The gateway package's inventory (deploy/packaging/gateway.yaml, installed by the .deb and .rpm). */
export const SYSTEM_INVENTORY_FILE = '/etc/fleetls/gateway.yaml';

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

/**
 * The CLI's inventory on a gateway host: as kubectl reads its one config wherever it runs, the
 * CLI reads the installed gateway's when nothing else names one (no --inventory, no
 * $FLEETLS_INVENTORY, no ./fleetls.yaml). `serve` does not: its unit names its inventory, and
 * a development server beside an installed one keeps to its own.
 */
export function cliInventoryPath(loc: InventoryLocation, system = SYSTEM_INVENTORY_FILE): string | undefined {
  if (loc.inventoryPath !== undefined && loc.inventoryPath !== '') return loc.inventoryPath;
  if (resolveInventoryPath(loc) !== undefined || (loc.env ?? process.env).FLEETLS_INVENTORY !== undefined) {
    return loc.inventoryPath;
  }
  return existsSync(system) ? system : loc.inventoryPath;
}
