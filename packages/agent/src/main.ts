#!/usr/bin/env node
import { setFlagsFromString } from 'node:v8';
import { createLogger } from '@fleetls/runtime';
import { createAgentServer } from './carriers/grpc.js';
import type { NatsAgent } from './carriers/nats-agent.js';
import { describeSocket } from './carriers/unix-socket.js';
import { type AgentConfig, ConfigError, ConfigExit, loadAgentConfig } from './config/config.js';
// fleetls-agent: parse the configuration, serve, reload credentials on SIGHUP, shut down
// gracefully on SIGTERM/SIGINT.
import { probeFind } from './find/route.js';
import { statRoute } from './fs/fsat.js';
import type { startMetricsServer } from './service/metrics.js';
import { createAgentHandlers } from './service/service.js';
import { AGENT_VERSION } from './version.js';

const GRACE_MS = 10_000;

type Logger = ReturnType<typeof createLogger>;

interface Carriers {
  server?: ReturnType<typeof createAgentServer>;
  port: number;
  nats?: NatsAgent;
  metricsServer?: Awaited<ReturnType<typeof startMetricsServer>>;
}

/** The configuration, or the exit code: 0 after --help/--version, 2 on a bad setting. */
async function loadConfig(logger: Logger): Promise<AgentConfig | number> {
  try {
    return await loadAgentConfig(process.argv.slice(2), process.env, AGENT_VERSION);
  } catch (err) {
    if (err instanceof ConfigExit) {
      process.stdout.write(err.output);
      return 0;
    }
    if (err instanceof ConfigError) {
      process.stderr.write(`fleetls-agent: ${err.message}\n`);
      logger.fatal({ err: err.message }, 'bad configuration');
      return 2;
    }
    throw err;
  }
}

/**
 * Starts the gRPC listener, the NATS responder and the metrics server, as configured. On a
 * failure it throws, with whatever already started left in `started` (the process exits then).
 */
async function startCarriers(config: AgentConfig, logger: Logger, started: Carriers): Promise<void> {
  // prom-client and the NATS client load only where configured: a resting agent holds neither (issue 19.7).
  const metricsModule = config.metrics ? await import('./service/metrics.js') : undefined;
  const metrics = metricsModule?.createAgentMetrics();
  // One set of handlers for both carriers: one admission (max_concurrent_walks) over both.
  const handlers = createAgentHandlers({ config, logger, version: AGENT_VERSION, observer: metrics?.observer });
  if (!config.grpcOff) {
    started.server = createAgentServer(config, logger, metrics?.observer, handlers);
    ({ port: started.port } = await started.server.start());
  }
  if (config.nats)
    started.nats = await (await import('./carriers/nats-agent.js')).startNatsAgent({
      nats: config.nats,
      handlers,
      logger,
    });
  if (metrics && config.metrics) {
    started.metricsServer = await metricsModule!.startMetricsServer(
      metrics.registry,
      config.metrics.host,
      config.metrics.port,
    );
    logger.info({ address: `${config.metrics.host}:${started.metricsServer.port}` }, 'metrics at /metrics');
  }
}

function logListening(config: AgentConfig, logger: Logger, port: number, findRoute: unknown): void {
  logger.info(
    {
      ...(config.unix
        ? { address: describeSocket(config.unix), socket: config.unix.path }
        : { port, address: `${config.host}:${port}` }),
      allow: config.allow,
      tls: config.tls !== undefined,
      bearerToken: config.tokenFile !== undefined,
      findRoute,
      statRoute: statRoute(),
      version: AGENT_VERSION,
    },
    'listening',
  );
  // The one way to run plaintext TCP without a token: said at every start, not only when chosen.
  if (!config.unix && config.tls === undefined && config.tokenFile === undefined) {
    logger.warn(
      { insecure_loopback: true, address: `${config.host}:${port}` },
      'plaintext gRPC on loopback without a token: any local user can list what this agent may list; ' +
        'listen on a Unix socket (listen: unix:/run/fleetls/agent.sock) or give token_file',
    );
  }
}

async function main(): Promise<number> {
  const logger = createLogger({ name: 'fleetls-agent', level: process.env.LOG_LEVEL ?? 'info' });
  const config = await loadConfig(logger);
  if (typeof config === 'number') return config;
  // Signals are taken from the start: a SIGTERM during startup stops the agent once it is up.
  let stopRequested: NodeJS.Signals | undefined;
  let onStop: (signal: NodeJS.Signals) => void = (signal) => {
    stopRequested ??= signal;
  };
  process.on('SIGTERM', (s) => onStop(s));
  process.on('SIGINT', (s) => onStop(s));
  // SIGHUP re-reads certificate, key, CA and token. One during startup changes nothing: the
  // files are being read then. (Node's default for SIGHUP would be to exit.)
  let onReload = () => {};
  process.on('SIGHUP', () => onReload());

  // Before the first walk: ranked walks go to GNU find where the probe finds it (find/route.ts).
  const findRoute = await probeFind();
  const started: Carriers = { port: 0 };
  try {
    await startCarriers(config, logger, started);
  } catch (err) {
    process.stderr.write(`fleetls-agent: ${(err as Error).message}\n`);
    logger.fatal({ err: (err as Error).message }, 'cannot start');
    return 1;
  }
  // The executable starts in V8's efficiency mode (scripts/package/exec-argv.json): the start
  // runs once, and tiering it up cost the optimizing compilers' pages and zones that an agent
  // at rest then holds (9 MiB of idle RSS, bench/results/footprint.why.md). Calls run at full tier.
  if (process.execArgv.includes('--efficiency-mode')) setFlagsFromString('--no-efficiency-mode');
  const { server, nats, metricsServer } = started;
  if (config.allow.length === 0) logger.warn('no --allow roots: every path will be refused');
  if (server) logListening(config, logger, started.port, findRoute);
  onReload = () => {
    try {
      server?.reload();
      logger.info(
        { tls: config.tls !== undefined, bearerToken: config.tokenFile !== undefined },
        'credentials reloaded',
      );
    } catch (err) {
      logger.error({ err: (err as Error).message }, 'reload failed: the credentials in use stay');
    }
  };
  return new Promise<number>((resolve) => {
    let stopping = false;
    onStop = (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal }, 'shutting down');
      void metricsServer?.close();
      Promise.all([server?.shutdown(GRACE_MS), nats?.close()]).then(
        () => {
          logger.info('stopped');
          resolve(0);
        },
        (err) => {
          logger.error({ err: String(err) }, 'shutdown failed');
          resolve(1);
        },
      );
    };
    if (stopRequested) onStop(stopRequested);
  });
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`fleetls-agent: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
