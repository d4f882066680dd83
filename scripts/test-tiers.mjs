#!/usr/bin/env node
// The test tiers. `npm test` runs every test file; `npm run test:unit` runs
// the in-process ones, for the edit loop. A file is left to the full run
// when anything it imports, however indirectly, starts another process
// (node:child_process: a PostgreSQL cluster, socat, a server or CLI run as
// a user would) or drives Chromium (playwright-core), or when it is listed
// below as too slow for the loop. The split follows the imports, so a new
// test lands in the right tier by itself.
//
//   node scripts/test-tiers.mjs --list        each file, its tier and why
//   node scripts/test-tiers.mjs unit [ARGS]   run the unit tier with tap (ARGS go to tap)
//   node scripts/test-tiers.mjs all [ARGS]    run every test file (npm test)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const folders = ['server', 'contracts', 'terminal', 'scripts', 'fixtures'];

/** In-process, but too slow for the edit loop (times on this two-vCPU host). */
const SLOW = {
  'contracts/suite/mutations.test.ts': 'runs the whole contract suite against every mutated server (about 50 s)',
};

/** tap's time-out for a file (package.json "tap".timeout), and the room a shard gets for each file it imports. */
const DEFAULT_TIMEOUT_MS = 120_000;
const SHARD_MS_PER_FILE = 5_000;

/** What makes a module leave the unit tier, by what it imports from outside the repository. */
const OUTSIDE = [
  [/['"]node:child_process['"]/, 'starts another process'],
  [/['"]playwright-core['"]/, 'drives Chromium'],
];

const usage = `usage: node scripts/test-tiers.mjs --list | unit [TAP ARGS] | all [TAP ARGS]

  --list   every test file, its tier (unit or full) and why
  unit     run the unit tier: in-process tests only, no cluster, pty,
           browser or child process (npm run test:unit adds the type check)
  all      run every test: the unit tier's shards and the rest (npm test)
`;

function testFiles(dir) {
  const found = [];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(entry.name === 'node_modules' ? [] : testFiles(path)));
    else if (entry.name.endsWith('.test.ts')) found.push(path);
  }
  return found;
}

const importPattern = /(?:from\s+|import\s*\(\s*|import\s+)['"](\.{1,2}\/[^'"]+)['"]/g;
const reasons = new Map();

/** Why a module (or one it imports) starts a process or a browser; null when it does neither. */
function heavyReason(file, seen = new Set()) {
  if (reasons.has(file)) return reasons.get(file);
  if (seen.has(file)) return null;
  seen.add(file);
  const source = readFileSync(join(root, file), 'utf8');
  let reason = null;
  for (const [pattern, what] of OUTSIDE) if (!reason && pattern.test(source)) reason = `${what} (${file})`;
  for (const match of source.matchAll(importPattern)) {
    if (reason) break;
    const target = relative(root, resolve(root, dirname(file), match[1])).replace(/\.js$/, '.ts');
    if (existsSync(join(root, target))) reason = heavyReason(target, seen);
  }
  reasons.set(file, reason);
  return reason;
}

function tiers() {
  return folders
    .flatMap(testFiles)
    .sort()
    .map((file) => {
      const why = SLOW[file] ?? heavyReason(file);
      return { file, tier: why ? 'full' : 'unit', why: why ?? 'in process' };
    });
}

/**
 * tap starts a process a file, about a second of loading each: three
 * quarters of the unit tier's time. In-process tests can share one, so
 * their files are imported into one shard a core, each shard a file for tap.
 */
function shardEntries(files) {
  const shards = Math.max(2, availableParallelism());
  const dir = join(root, '.tap/test-tiers');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const entries = [];
  for (let shard = 0; shard < shards; shard += 1) {
    const mine = files.filter((_, i) => i % shards === shard);
    if (mine.length === 0) continue;
    const entry = join(dir, `unit-${shard + 1}-of-${shards}.test.ts`);
    const imports = mine
      .map((file) => `await import(${JSON.stringify(pathToFileURL(join(root, file)).href)});\n`)
      .join('');
    // A shard is many files in one process: its time-out grows with them, as each file alone would have its own.
    const timeoutMs = Math.max(DEFAULT_TIMEOUT_MS, mine.length * SHARD_MS_PER_FILE);
    writeFileSync(
      entry,
      `// The unit tier's shard ${shard + 1} of ${shards}, written by scripts/test-tiers.mjs.\nimport t from 'tap';\nt.setTimeout(${timeoutMs});\n${imports}`,
    );
    entries.push(relative(root, entry));
  }
  return entries;
}

const [command, ...rest] = process.argv.slice(2);
if (command === '--list') {
  for (const { file, tier, why } of tiers()) process.stdout.write(`${tier.padEnd(5)} ${file}  ${why}\n`);
} else if (command === 'unit' || command === 'all') {
  const listed = tiers();
  const files = listed.filter((entry) => entry.tier === 'unit').map((entry) => entry.file);
  const full = command === 'all' ? listed.filter((entry) => entry.tier === 'full').map((entry) => entry.file) : [];
  const entries = shardEntries(files);
  process.stderr.write(
    `${command === 'unit' ? 'unit tier' : 'every test'}: ${files.length} in-process test files in ${entries.length} processes${full.length ? `, and ${full.length} files a process each` : ''} (node scripts/test-tiers.mjs --list says which and why)\n`,
  );
  const tap = spawnSync(
    process.execPath,
    [join(root, 'node_modules/tap/dist/esm/run.mjs'), ...rest, ...entries, ...full],
    { cwd: root, stdio: 'inherit' },
  );
  process.exit(tap.status ?? 1);
} else {
  process.stdout.write(usage);
  process.exit(command === '--help' || command === '-h' ? 0 : 2);
}
