// Which inventory file applies and reading it: a fleetls YAML file (inventory.ts) or an
// Ansible inventory (inventory/ansible/ansible.ts), told apart by their content.
import { readFileSync } from 'node:fs';
import { FleetError } from '@fleetls/core';
import { inventoryFormat, parseAnsibleInventory } from './ansible/ansible.js';
import { fail, type Inventory, Problems, parseInventory } from './inventory.js';
import { unreadableFiles } from './named-files.js';
import { type InventoryLocation, resolveInventoryPath } from './path.js';

export { type InventoryLocation, resolveInventoryPath } from './path.js';

/**
 * Reads and parses the inventory that applies, or undefined when there is none. Every file
 * it names is read too (`checkFiles: false` skips that, and lets agent_tls be missing: `fleetls
 * pki` is making them, before the inventory names them).
 */
export function loadInventory(loc: InventoryLocation & { home?: string; checkFiles?: boolean }): Inventory | undefined {
  const file = resolveInventoryPath(loc);
  if (file === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message;
    throw new FleetError('invalid_argument', `inventory ${file}: cannot read it (${why})`, { cause: err });
  }
  const format = inventoryFormat(text, file);
  const opts = { source: file, home: loc.home, tlsPending: loc.checkFiles === false };
  const inv = format === 'fleetls' ? parseInventory(text, opts) : parseAnsibleInventory(text, format, opts);
  if (loc.checkFiles === false) return inv;
  // A missing certificate or key fails the load, naming its key, not every call later.
  const p = new Problems();
  for (const problem of unreadableFiles(inv)) p.add('', problem);
  if (p.list.length > 0) fail(file, p);
  return inv;
}
