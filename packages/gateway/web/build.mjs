// Bundles the dashboard (web/*.ts + d3-hierarchy) with esbuild into dist/web-app/, beside
// its page and stylesheet; the gateway serves that folder at / (src/web/assets.ts).
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '../dist/web-app');
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [join(here, 'app.ts')],
  bundle: true,
  format: 'esm',
  target: 'es2022',
  minify: true,
  legalComments: 'none',
  outfile: join(out, 'app.js'),
  logLevel: 'warning',
});
for (const f of ['index.html', 'app.css']) copyFileSync(join(here, f), join(out, f));
