import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { appError } from '../errors.js';

// The web console's script, as `npm run build` bundles it from
// server/console/web/ (scripts/build-console.mjs) into dist/console/app.js
// of the package: read once, then served from memory.

/** The package's root: the nearest folder above this module with a package.json (the checkout, or the installed package). */
function packageRoot(from: string): string {
  for (let dir = dirname(from); dir !== dirname(dir); dir = dirname(dir))
    if (existsSync(join(dir, 'package.json'))) return dir;
  throw new Error(`no package.json above ${from}`);
}

let script: Promise<string> | undefined;

/** The console's script; a checkout never built answers 503 saying how to build it. */
export function consoleApp(): Promise<string> {
  script ??= readFile(join(packageRoot(fileURLToPath(import.meta.url)), 'dist', 'console', 'app.js'), 'utf8').catch(
    (error: NodeJS.ErrnoException) => {
      script = undefined; // built later: read then
      if (error.code !== 'ENOENT') throw error;
      throw appError(
        'INTERNAL_ERROR',
        "the web console's script is not built in this checkout: run npm run build (npm start builds it)",
      );
    },
  );
  return script;
}
