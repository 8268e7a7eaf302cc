// `fleetls pki init | issue HOST… | client`: the subcommands over pki.ts, which (with
// @peculiar/x509) loads only when one of them runs.
import type { Command } from 'commander';
import type { CliIo } from './io.js';

interface PkiFlags {
  dir: string;
  days?: string;
  name?: string[];
}

const repeat = (v: string, prev: string[] = []) => [...prev, v];

/** The address part the gateway dials for `host` (its `agent: HOST:PORT`), else undefined. */
async function dialledName(io: CliIo, inventoryPath: string | undefined, host: string): Promise<string | undefined> {
  const { loadInventory } = await import('../../inventory/inventory-file.js');
  const { cliInventoryPath } = await import('../../inventory/path.js');
  const { hostOfAddress } = await import('@fleetls/hosts/agent');
  const loc = { inventoryPath, env: io.env, cwd: io.cwd };
  // Not checking the files it names: the certificates are being made now.
  const inv = loadInventory({ ...loc, inventoryPath: cliInventoryPath(loc), checkFiles: false });
  const h = inv?.hosts.find((x) => x.name === host);
  if (!h?.agent) return undefined;
  return hostOfAddress(h.agent).host;
}

export function addPkiCommand(program: Command, io: CliIo): void {
  const out = (line: string) => io.stdout.write(`${line}\n`);
  const pki = program
    .command('pki')
    .description("the fleet's certificates: a CA, agents' server certificates, the gateway's client certificate");
  const dirOption = (c: Command) => c.option('--dir <dir>', 'where the CA and certificates are (default ./pki)', 'pki');

  dirOption(pki.command('init'))
    .description('make the CA (ca.crt, ca.key 0600) in --dir')
    .option('--days <n>', 'validity in days (default 3650)')
    .action(async (o: PkiFlags) => {
      const p = await import('./pki.js');
      const days = o.days === undefined ? p.CA_DAYS : p.parseDays('--days', o.days);
      const f = await p.initCa(o.dir, { days });
      out(`wrote ${f.caCert} and ${f.caKey} (CA "${f.name}", ${days} days)`);
    });

  dirOption(pki.command('issue'))
    .description(
      "an agent server certificate per HOST: HOST.crt, HOST.key 0600; its names are the address the gateway dials (the inventory's agent HOST:PORT: an IP SAN for an IP, DNS otherwise), plus --name",
    )
    .argument('<host...>', 'inventory host names (or names to issue for)')
    .option('--name <name>', 'one more DNS name or IP the certificate carries, repeatable', repeat)
    .option('--days <n>', 'validity in days (default 397)')
    .action(async (hosts: string[], o: PkiFlags, cmd: Command) => {
      const p = await import('./pki.js');
      const days = o.days === undefined ? p.LEAF_DAYS : p.parseDays('--days', o.days);
      const inventory = (cmd.optsWithGlobals() as { inventory?: string }).inventory;
      for (const n of o.name ?? []) p.checkName('--name', n);
      const f = p.pkiFiles(o.dir);
      for (const host of hosts) {
        const r = await p.issueAgent(
          f,
          { name: host, dialled: await dialledName(io, inventory, host) },
          o.name ?? [],
          days,
        );
        out(`wrote ${r.cert} and ${r.key} (server, ${days} days, names ${r.sans.join(', ')})`);
      }
    });

  dirOption(pki.command('client'))
    .description("the gateway's client certificate: gateway.crt, gateway.key 0600 (agent_tls.cert and key)")
    .option('--name <cn>', 'its common name (default fleetls-gateway)')
    .option('--days <n>', 'validity in days (default 397)')
    .action(async (o: { dir: string; days?: string; name?: string }) => {
      const p = await import('./pki.js');
      const days = o.days === undefined ? p.LEAF_DAYS : p.parseDays('--days', o.days);
      const r = await p.issueClient(p.pkiFiles(o.dir), o.name, days);
      out(`wrote ${r.cert} and ${r.key} (client, ${days} days)`);
    });
}
