// list_hosts' row: the schema of its answer's rows and their type, for the tool and for the
// CLI's hosts table (tools/shared/cli-format.ts), which prints the same rows.
import { VIAS } from '@fleetls/core';
import { z } from 'zod';
import * as s from '../schemas.js';

export const hostRowSchema = z.object({
  host: z.string(),
  transport: z.enum(VIAS),
  address: z.string(),
  labels: z.record(z.string(), z.string()),
  groups: z.array(z.string()),
  ssh_fallback: z.boolean(),
  reachable: z.boolean().optional(),
  version: z.string().optional(),
  /** The request features an agent says it applies (agents only: SSH and embedded hosts apply all). */
  features: z.array(z.string()).optional(),
  status: s.hostStatusSchema.shape.status.optional(),
  via: s.hostStatusSchema.shape.via.optional(),
  elapsed_ms: z.number().optional(),
  message: z.string().optional(),
  /** Whole days until the agent's TLS certificate expires (negative once expired; mTLS agents). */
  cert_expires_in_days: z.number().optional(),
});

export type HostRow = z.infer<typeof hostRowSchema>;
