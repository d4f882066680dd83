// npm run build (and prepare): compiles to dist/ and makes the commands
// executable, so every bin runs compiled JavaScript, with no TypeScript
// tooling at run time. With --if-available (prepare) it does nothing when
// TypeScript is not installed: a production-only install of a checkout
// keeps the dist/ it has, and an install of the packed tarball has it built.
// With --if-stale (npm start and the npm run commands) it builds only when a
// source changed since the last build, and never needs TypeScript when
// dist/ is current: a command answers at once, even after a production-only
// install.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const STAMP = 'dist/.build-stamp';
const SOURCES = ['server', 'terminal', 'contracts', 'scripts', 'fixtures'];
const ifStale = process.argv.includes('--if-stale');

/** The newest modification time among the sources a build reads (TypeScript, the configs, package.json). */
function newestSource() {
  let newest = 0;
  const visit = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (/\.(ts|mjs)$/.test(entry.name) && !entry.name.endsWith('.test.ts'))
        newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  for (const dir of SOURCES) if (existsSync(dir)) visit(dir);
  for (const file of ['package.json', 'tsconfig.json', 'tsconfig.build.json'])
    if (existsSync(file)) newest = Math.max(newest, statSync(file).mtimeMs);
  return newest;
}

const require = createRequire(import.meta.url);
let tsc;
try {
  tsc = require.resolve('typescript/bin/tsc');
} catch {
  if (ifStale && existsSync('dist')) process.exit(0); // a production install: dist/ is what there is
  if (!process.argv.includes('--if-available') && !ifStale)
    throw new Error('TypeScript is not installed: run npm ci (with dev dependencies) first');
  if (!existsSync('dist'))
    process.stderr.write(
      'build: TypeScript is not installed, so dist/ was not built; install the packed tarball, or run npm ci once with dev dependencies\n',
    );
  process.exit(ifStale ? 1 : 0);
}
if (ifStale && existsSync(STAMP) && statSync(STAMP).mtimeMs >= newestSource()) process.exit(0);
const started = Date.now();
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
const { buildWeb } = await import('./build-web.mjs');
await buildWeb();
const { bin } = JSON.parse(readFileSync('package.json', 'utf8'));
for (const path of Object.values(bin)) chmodSync(path, 0o755);
// Stamped with the time the build began: a source saved while it ran is newer, and builds next time.
writeFileSync(STAMP, `${new Date(started).toISOString()}\n`);
utimesSync(STAMP, started / 1000, started / 1000);
