import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// What every command answers to --version: the package's own version, read
// from its package.json (above this file, whether it runs from the sources,
// from dist/ or from an installed package).

export const PACKAGE_NAME = 'svc-pos-sim';

export function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const found = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (found.name === PACKAGE_NAME && found.version) return found.version;
    }
    const up = dirname(dir);
    if (up === dir) return 'unknown';
    dir = up;
  }
}

/** The line --version prints. */
export const versionLine = (command: string) => `${command} ${packageVersion()} (${PACKAGE_NAME})\n`;
