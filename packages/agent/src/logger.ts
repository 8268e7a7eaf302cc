// The one logger factory of every fleetls process (agent and gateway): JSON on stderr
// (stdout belongs to the MCP stdio transport), synchronous so nothing is lost on exit,
// secrets redacted at the root (a child with its own `redact` would replace these paths,
// so children get bindings only). It lives in the agent package because the gateway
// depends on the agent and not the other way round.
import { type Logger, pino } from 'pino';

export type { Logger } from 'pino';

export const REDACT_PATHS = [
  'token',
  '*.token',
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'passphrase',
  '*.passphrase',
  'privateKey',
  '*.privateKey',
  'password',
  '*.password',
];

export function createLogger(opts: { level?: string; name: string; fd?: number }): Logger {
  return pino(
    {
      name: opts.name,
      level: opts.level ?? 'info',
      base: { svc: opts.name },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    },
    pino.destination({ fd: opts.fd ?? 2, sync: true }),
  );
}
