// npm run build (and prepare): compiles to dist/ and makes the commands
// executable, so every bin runs compiled JavaScript, with no TypeScript
// tooling at run time. With --if-available (prepare) it does nothing when
// TypeScript is not installed: a production-only install of a checkout
// keeps the dist/ it has, and an install of the packed tarball has it built.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
let tsc;
try {
  tsc = require.resolve('typescript/bin/tsc');
} catch {
  if (!process.argv.includes('--if-available'))
    throw new Error('TypeScript is not installed: run npm ci (with dev dependencies) first');
  if (!existsSync('dist'))
    process.stderr.write(
      'build: TypeScript is not installed, so dist/ was not built; install the packed tarball, or run npm ci once with dev dependencies\n',
    );
  process.exit(0);
}
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
const { buildConsole } = await import('./build-console.mjs');
await buildConsole();
const { bin } = JSON.parse(readFileSync('package.json', 'utf8'));
for (const path of Object.values(bin)) chmodSync(path, 0o755);
