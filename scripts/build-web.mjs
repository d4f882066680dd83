// The pages' scripts: server/console/web/*.ts and server/pay/web/*.ts,
// type-checked by `npm run typecheck`, bundled here into one plain ES module
// each, dist/console/app.js and dist/pay/app.js, which the server serves as
// /console/app.js and /pay/app.js (the pages' Content-Security-Policy allows
// scripts from their own origin only). esbuild (a dev dependency) bundles:
// the server needs no tooling at run time.
import { build } from 'esbuild';

export async function buildWeb() {
  await build({
    entryPoints: { 'console/app': 'server/console/web/main.ts', 'pay/app': 'server/pay/web/main.ts' },
    bundle: true,
    format: 'esm',
    target: 'es2022',
    outdir: 'dist',
    logLevel: 'warning',
    legalComments: 'none',
  });
}

if (import.meta.url === `file://${process.argv[1]}`) await buildWeb();
