// The MCP Apps extension (io.modelcontextprotocol/ui) on the MCP face: disk_usage links its
// results to ui://fleetls/du-treemap, an HTML resource that hosts which render MCP Apps show
// beside the result (the dashboard's treemap, fed by the result's structuredContent). Hosts
// that do not render them ignore `_meta` and the resource; text answers are unchanged.
import type { McpServer } from '@modelcontextprotocol/server';
import { loadDuApp } from './assets.js';

export const DU_APP_URI = 'ui://fleetls/du-treemap';
export const MCP_APP_MIME = 'text/html;profile=mcp-app';

/** The tool's `_meta` that links its results to the app: `ui.resourceUri`, and the older flat key. */
export function toolUiMeta(toolName: string): Record<string, unknown> | undefined {
  if (toolName !== 'disk_usage' || loadDuAppOnce() === undefined) return undefined;
  return { ui: { resourceUri: DU_APP_URI }, 'ui/resourceUri': DU_APP_URI };
}

let cached: { html: string | undefined } | undefined;
function loadDuAppOnce(): string | undefined {
  cached ??= { html: loadDuApp() };
  return cached.html;
}

/** Registers the app's resource (when the build has the web files). */
export function registerMcpApps(server: McpServer): void {
  const html = loadDuAppOnce();
  if (html === undefined) return;
  server.registerResource(
    'du-treemap',
    DU_APP_URI,
    {
      title: 'Where did the space go (treemap)',
      description: "disk_usage's result as a treemap with a size list; click a directory to drill into it.",
      mimeType: MCP_APP_MIME,
    },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: MCP_APP_MIME, text: html, _meta: { ui: { prefersBorder: true } } }],
    }),
  );
}
