// What the agent's and the gateway's Prometheus registries share: the latency buckets, the
// process metrics, and the count of log lines the logger had to drop.
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import { droppedLogLines } from './logger.js';

/** Seconds, from a millisecond call to a minute-long walk or fan-out. */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** A registry with Node's process metrics (collectDefaultMetrics) registered. */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/**
 * Log lines this process dropped because its log's reader did not take them (logger.ts),
 * read at each scrape; each process registers it under its own name.
 */
export function logLinesDroppedCounter(name: string, registers: Registry[]): Counter {
  let counted = 0;
  return new Counter({
    name,
    help: "Log lines dropped because the log's reader (stderr) did not keep up.",
    registers,
    collect() {
      const n = droppedLogLines();
      this.inc(n - counted);
      counted = n;
    },
  });
}

/** Declares metrics on one registry, one line each: counters, and histograms over LATENCY_BUCKETS. */
export function metricsOn(registry: Registry) {
  const registers = [registry];
  return {
    counter: <L extends string = never>(name: string, help: string, labelNames: readonly L[] = []) =>
      new Counter<L>({ name, help, labelNames, registers }),
    latency: <L extends string = never>(name: string, help: string, labelNames: readonly L[] = []) =>
      new Histogram<L>({ name, help, labelNames, buckets: LATENCY_BUCKETS, registers }),
  };
}
