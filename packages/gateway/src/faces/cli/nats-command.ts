// `fleetls nats issue HOST… | node NAME`: what a NATS fleet needs, over nats-files.ts, which
// (with @nats-io/nkeys) loads only when one of them runs.
import type { Command } from 'commander';
import type { CliIo } from './io.js';

const repeat = (v: string, prev: string[] = []) => [...prev, v];

export function addNatsCommand(program: Command, io: CliIo): void {
  const out = (line: string) => io.stdout.write(`${line}\n`);
  const nats = program
    .command('nats')
    .description("a NATS fleet's identities: nkeys per host and for the gateways, the servers' permissions and nodes");
  const dirOption = (c: Command) =>
    c.option('--dir <dir>', 'where the seeds and configuration are (default ./nats)', 'nats');

  dirOption(nats.command('issue'))
    .description(
      "an nkey seed per HOST (HOST.nk 0600) and one for the gateways (gateway.nk), kept when there; accounts.conf (the server's users, each with its permissions) from every seed in --dir; with --servers, fleet.yaml (the gateways' inventory)",
    )
    .argument('<host...>', 'the agents’ names (their --name)')
    .option('--servers <urls>', 'nats://HOST:PORT,… the gateways dial: writes fleet.yaml')
    .option('--tls', 'also TLS: a CA (tls/ca.crt), a client certificate per HOST and one for the gateways')
    .action(async (hosts: string[], o: { dir: string; servers?: string; tls?: boolean }) => {
      const f = await import('./nats-files.js');
      // The certificates first: fleet.yaml names them.
      if (o.tls) for (const line of await f.issueTls(o.dir, hosts)) out(line);
      for (const line of f.issue(o.dir, hosts, o.servers, o.tls === true)) out(line);
    });

  dirOption(nats.command('node'))
    .description('NAME.conf: one nats-server node (JetStream, the cluster, TLS if given) including accounts.conf')
    .argument('<name>', 'the node’s server_name')
    .requiredOption('--listen <host:port>', 'where clients connect')
    .requiredOption('--store <dir>', 'its JetStream store')
    .option('--cluster-listen <host:port>', 'where the other nodes route to it')
    .option('--route <host:port>', 'another node’s cluster address, repeatable', repeat)
    .option('--tls-cert <file>', 'its TLS certificate (PEM)')
    .option('--tls-key <file>', 'its TLS key (PEM)')
    .option('--tls-ca <file>', "the CA clients' certificates must be signed by (verify)")
    .option(
      '--tls',
      "TLS from `nats issue --tls`: a server certificate for the node (tls/nodes/NAME.crt, its names --listen's host and --tls-name's), clients' certificates required",
    )
    .option('--tls-name <name>', 'another name the node is dialled by (its certificate), repeatable', repeat)
    .action(
      async (
        name: string,
        o: {
          dir: string;
          listen: string;
          store: string;
          clusterListen?: string;
          route?: string[];
          tlsCert?: string;
          tlsKey?: string;
          tlsCa?: string;
          tls?: boolean;
          tlsName?: string[];
        },
      ) => {
        const { invalidArgument } = await import('@fleetls/core');
        if ((o.tlsCert === undefined) !== (o.tlsKey === undefined) || (o.tlsCa && !o.tlsCert))
          throw invalidArgument('--tls-cert and --tls-key go together (and --tls-ca with them)');
        if (o.tls && o.tlsCert) throw invalidArgument('--tls makes the certificate: not with --tls-cert');
        if (o.tlsName && !o.tls) throw invalidArgument('--tls-name: only with --tls');
        const f = await import('./nats-files.js');
        const spec = {
          name,
          listen: o.listen,
          store: o.store,
          clusterListen: o.clusterListen,
          routes: o.route ?? [],
          tls: o.tlsCert && o.tlsKey ? { cert: o.tlsCert, key: o.tlsKey, ca: o.tlsCa } : undefined,
        };
        f.checkNode(spec);
        if (o.tls) spec.tls = await f.nodeTls(o.dir, name, [f.hostOf(o.listen), ...(o.tlsName ?? [])]);
        const file = f.node(o.dir, spec);
        out(`wrote ${file} (nats-server -c ${file})`);
      },
    );
}
