// The dashboard's built files, read from dist/web-app beside this module. The one-file
// bundle replaces this module with the same files embedded (scripts/package/bundle.mjs).
import { readFileSync } from 'node:fs';

export const DASHBOARD_FILES = ['index.html', 'app.js', 'app.css', 'favicon.svg', 'du-app.html'] as const;

export function readDashboardFile(name: (typeof DASHBOARD_FILES)[number]): Buffer {
  return readFileSync(new URL(`../../web-app/${name}`, import.meta.url));
}
