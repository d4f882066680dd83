// The web console's script: server/console/web/*.ts, type-checked by
// `npm run typecheck`, bundled here into one plain ES module,
// dist/console/app.js, which the server serves as /console/app.js (its
// Content-Security-Policy allows scripts from the page's own origin only).
// esbuild (a dev dependency) bundles: the server needs no tooling at run time.
import { build } from 'esbuild';

export async function buildConsole() {
  await build({
    entryPoints: ['server/console/web/main.ts'],
    bundle: true,
    format: 'esm',
    target: 'es2022',
    outfile: 'dist/console/app.js',
    logLevel: 'warning',
    legalComments: 'none',
  });
}

if (import.meta.url === `file://${process.argv[1]}`) await buildConsole();
