// Bundles the dashboard (web/*.ts + d3-hierarchy + core's display-text) with esbuild into
// dist/web-app/, beside its page, stylesheet and icon; the gateway serves that folder at /
// (src/web/assets.ts). The in-chat MCP App (du-app) is one HTML file, script and style inline,
// as MCP Apps hosts load a ui:// resource.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '../dist/web-app');
mkdirSync(out, { recursive: true });
const common = { bundle: true, format: 'esm', target: 'es2022', minify: true, legalComments: 'none', logLevel: 'warning' };
await build({ ...common, entryPoints: [join(here, 'app.ts')], outfile: join(out, 'app.js') });
for (const f of ['index.html', 'app.css', 'favicon.svg']) copyFileSync(join(here, f), join(out, f));

const app = await build({ ...common, entryPoints: [join(here, 'du-app.ts')], write: false });
const script = app.outputFiles[0].text.replaceAll('</script', '<\\/script');
const html = readFileSync(join(here, 'du-app.html'), 'utf8')
  .replace('/*STYLE*/', readFileSync(join(here, 'du-app.css'), 'utf8'))
  .replace('/*SCRIPT*/', () => script);
writeFileSync(join(out, 'du-app.html'), html);
