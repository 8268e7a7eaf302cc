// scan_status: where a scan stands (the cursor of any of its pages names it), without taking
// a page: hosts done of total, entries seen, elapsed, a guess at the rest, the failed hosts;
// cancel=true stops every host's walk (what arrived stays readable through the cursor).
import type { MessageInitShape } from '@bufbuild/protobuf';
import { invalidArgument } from '@fleetls/core';
import type { ScanStatusResponseSchema } from '@fleetls/proto/fleet_pb';
import { z } from 'zod';
import { decodeScanCursor, isScanCursor } from '../../scans/cursor.js';
import type { ScanInfo } from '../../scans/face.js';
import { ScanRegistry } from '../../scans/scan-registry.js';
import { scanJson, scanLine } from '../scan-answer.js';
import * as s from '../schemas.js';
import { scanToWire } from '../shared/fleet-present.js';
import { defineTool, type ToolResult } from '../tool.js';

const input = {
  cursor: z
    .string({ error: 'cursor must be a string: the next_cursor of a scan page (scan.…)' })
    .max(64, { error: 'cursor must be at most 64 characters' })
    .describe('a next_cursor of the scan'),
  cancel: z.boolean({ error: 'cancel must be true or false' }).default(false).describe('stop its walks'),
};

const output = { scan: s.scanSchema, cancelled: z.boolean() };

export interface ScanStatus extends ToolResult {
  info: ScanInfo;
  delivered: boolean;
  cursor: string;
  cancelled: boolean;
}

function scanStatusToFleet(r: ScanStatus): MessageInitShape<typeof ScanStatusResponseSchema> {
  return { scan: scanToWire(r.info, r.delivered), cancelled: r.cancelled };
}

export const scanStatusTool = defineTool({
  name: 'scan_status',
  title: 'Scan progress',
  description: 'How far has a scan (a next_cursor scan.…) got? Hosts done, entries, elapsed, time left, failures.',
  input,
  output,

  plan(a) {
    if (!isScanCursor(a.cursor))
      throw invalidArgument('cursor must be the next_cursor of a scan page (it starts with scan.)');
    return { pos: decodeScanCursor(a.cursor), cursor: a.cursor, cancel: a.cancel };
  },

  async collect(p, ctx): Promise<ScanStatus> {
    const scans = ctx.scans;
    if (!(scans instanceof ScanRegistry))
      throw invalidArgument(
        'scan_status needs a serving face that keeps scans (fleetls serve); the CLI waits for every host',
      );
    const scan = scans.get(p.pos.id, ctx.principal ?? ctx.audit?.caller ?? 'anonymous');
    scans.touch(scan);
    const cancelled = p.cancel && scan.running;
    if (cancelled) {
      scan.cancel('cancelled with scan_status');
      scans.audit(scan, 'cancel', ctx.audit?.caller ?? scan.principal, { reason: 'scan_status cancel=true' });
    }
    return { hosts: [], info: scan.info(), delivered: scan.delivered, cursor: p.cursor, cancelled };
  },

  mcp(r: ScanStatus) {
    const line = scanLine(r.info, r.info.tool, r.delivered ? undefined : r.cursor);
    return {
      structured: { scan: scanJson(r.info, r.delivered), cancelled: r.cancelled },
      text: r.cancelled ? `${line}\n[SCAN] cancelled: every host still walking was stopped` : line,
    };
  },

  fleet: { method: 'ScanStatus', present: scanStatusToFleet },
});
