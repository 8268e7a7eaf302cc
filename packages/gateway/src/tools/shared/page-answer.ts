// A paged listing's MCP answer (list_files, disk_usage, diff_directory): as many of its rows
// as fit the budget, then what was cut (pageCuts), then the failed hosts. The host statuses
// are fitted once; each try of a row count gets its own next cursor and cuts.
import type { HostStatus } from '@fleetls/core';
import type { GatewayOptions } from '../../fleet/options.js';
import type { McpAnswer } from '../tool.js';
import { type AnswerCut, type FitOptions, fitAnswer } from './answer-size.js';
import { type FittedHostStatuses, fitFailedHosts } from './host-statuses.js';
import type { HostTruncation } from './host-walks.js';
import { type HostStatusJson, pageCuts, type TruncationJson } from './present.js';

/** What the answer reads of a listing: its path, its hosts' statuses, and where a page of it ends. */
export interface PagedListing {
  path: string;
  hosts: HostStatus[];
  cursorAfter(shown: number): string | undefined;
}

/** What a page of `count` rows carries besides its rows: the next cursor, its cuts, the fitted host statuses. */
export interface PageEnds {
  next: string | undefined;
  truncations: TruncationJson[];
  hosts: { hosts: HostStatusJson[] };
}

export interface PageLayout {
  /** Failed hosts' lines prefixed with their host. */
  multi: boolean;
  /** The rows the page may show, each with its cost (rowSize), counted in `noun` (rows, differences). */
  rows: number;
  rowCost(i: number): { bytes: number; tokens: number };
  noun: string;
  /** The hosts' walk cuts told one by one. */
  hostCuts: readonly HostTruncation[];
  /** The tool's lines after the hosts' cuts (its notes) for a page of `count` rows. */
  lines(count: number): readonly string[];
  /** The page of the first `count` rows: its structured answer, and its text before the cuts' lines. */
  page(count: number, ends: PageEnds): { structured: McpAnswer['structured']; text: string[] };
  options: Pick<GatewayOptions, 'maxAnswerBytes' | 'maxAnswerTokens'>;
}

/** The answer with the most rows of `listing` that fits the budget (fitAnswer), laid out by `layout`. */
export function fitPage(listing: PagedListing, layout: PageLayout): McpAnswer {
  return fitAnswer(new PageFit(listing, layout)).answer;
}

/** fitAnswer's options for a page: a class, as AnswerFit is (answer-size.ts), so its code outlives the call. */
class PageFit implements FitOptions {
  readonly rows: number;
  readonly options: PageLayout['options'];
  /** The host statuses, fitted once for every try of a row count. */
  private readonly hs: FittedHostStatuses & { failures: string[] };

  constructor(
    private readonly listing: PagedListing,
    private readonly layout: PageLayout,
  ) {
    this.rows = layout.rows;
    this.options = layout.options;
    this.hs = fitFailedHosts(listing.hosts, listing.path, layout.multi, layout.options);
  }

  rowCost(i: number): { bytes: number; tokens: number } {
    return this.layout.rowCost(i);
  }

  build(count: number, cut: AnswerCut): McpAnswer {
    const { listing, layout, hs } = this;
    const next = listing.cursorAfter(count);
    const { truncations, warnings } = pageCuts({
      hostCuts: layout.hostCuts,
      path: listing.path,
      statusCut: hs.truncation,
      lines: layout.lines(count),
      count,
      total: layout.rows,
      noun: layout.noun,
      cut,
    });
    const { structured, text } = layout.page(count, { next, truncations, hosts: hs.json });
    return { structured, text: [...text, ...warnings, ...hs.failures].join('\n') };
  }
}
