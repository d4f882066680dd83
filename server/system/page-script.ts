import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { appError } from '../errors.js';

// The pages' scripts, as `npm run build` bundles them from their typed
// modules (server/console/web/, server/pay/web/; scripts/build-web.mjs) into
// dist/<page>/app.js of the package: each read once, then served from memory.

/** The pages that load a script of their own. */
export type ScriptedPage = 'console' | 'pay';

/** The package's root: the nearest folder above this module with a package.json (the checkout, or the installed package). */
function packageRoot(from: string): string {
  for (let dir = dirname(from); dir !== dirname(dir); dir = dirname(dir))
    if (existsSync(join(dir, 'package.json'))) return dir;
  throw new Error(`no package.json above ${from}`);
}

const scripts = new Map<ScriptedPage, Promise<string>>();

/** The page's script; a checkout never built answers 503 saying how to build it. */
export function pageScript(page: ScriptedPage): Promise<string> {
  let script = scripts.get(page);
  if (!script) {
    script = readFile(join(packageRoot(fileURLToPath(import.meta.url)), 'dist', page, 'app.js'), 'utf8').catch(
      (error: NodeJS.ErrnoException) => {
        scripts.delete(page); // built later: read then
        if (error.code !== 'ENOENT') throw error;
        throw appError(
          'INTERNAL_ERROR',
          `the ${page} page's script is not built in this checkout: run npm run build (npm start builds it)`,
        );
      },
    );
    scripts.set(page, script);
  }
  return script;
}
