#!/usr/bin/env node
// The structure figures CONTRIBUTING.md asks a change to keep: source files
// over 300 lines (STYLE: a file one idea, about 300 lines at most), the
// biggest of them, and the size of the pages a newcomer reads first.
// Tests, test helpers and generated typings are left out: they are read
// differently. Usage: npm run structure [-- --json]
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const folders = ['server', 'terminal', 'contracts', 'scripts', 'fixtures'];
/** Lines a source file may have before it is counted as long. */
export const LONG_FILE_LINES = 300;
/** Pages and their budgets in bytes. */
export const PAGE_BUDGETS = { 'README.md': 25 * 1024, 'terminal/README.md': 20 * 1024 };

const isSource = (name) => /\.(ts|mts|mjs)$/.test(name) && !/\.test\.|\.d\.ts$|-testkit\./.test(name);

function sources(dir) {
  const found = [];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'testing' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...sources(path));
    else if (isSource(entry.name)) found.push(path);
  }
  return found;
}

export function structureFigures() {
  const files = folders.flatMap(sources);
  const long = files
    .map((file) => ({ file, lines: readFileSync(join(root, file), 'utf8').split('\n').length - 1 }))
    .filter(({ lines }) => lines > LONG_FILE_LINES)
    .sort((a, b) => b.lines - a.lines);
  const pages = Object.entries(PAGE_BUDGETS).map(([page, budget]) => ({
    page,
    bytes: statSync(join(root, page)).size,
    budget,
  }));
  return { sourceFiles: files.length, long, pages };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const figures = structureFigures();
  if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
  else {
    process.stdout.write(
      `${figures.sourceFiles} source files; over ${LONG_FILE_LINES} lines: ${figures.long.length}\n` +
        figures.long.map(({ file, lines }) => `  ${lines}  ${relative('.', join(root, file))}\n`).join('') +
        figures.pages
          .map(({ page, bytes, budget }) => `${page}: ${(bytes / 1024).toFixed(1)} KB of ${budget / 1024} KB\n`)
          .join(''),
    );
  }
}
