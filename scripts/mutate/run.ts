// npm run mutate [-- NAME…]: mutation testing of the modules in modules.ts
// (Stryker with its command runner, each module against its own tests), a
// report per module in reports/mutation/, and a failed run when a module
// scores below the threshold. Not part of npm test: each mutant reruns the
// module's tests, so a module takes minutes (the whole list, hours, on two
// vCPUs).
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { BREAK_THRESHOLD, MUTATED_MODULES, type MutatedModule } from './modules.js';

const usage = `usage: npm run mutate [-- NAME…] [--concurrency N] [--list]

Mutates each module of scripts/mutate/modules.ts (or those whose path
contains a NAME) with Stryker, runs that module's tests against every
mutant, and reports per module: mutants, killed, survivors, equivalent,
score. Reports go to reports/mutation/<module path with dashes>/: the JSON, the survivors as
text, and equivalent.txt, the mutants a "// Stryker disable" comment in the
source declares equivalent, each with its reason (left out of the score).
Exit code 1 when a module scores below ${BREAK_THRESHOLD} %, 2 for a usage
error. A module takes minutes: run a few by name while working on them.

  --concurrency N   mutants tested at once (default 2)
  --list            list the modules and their tests, and exit
  -h, --help        this text
`;

let parsed;
try {
  parsed = parseArgs({
    allowPositionals: true,
    options: {
      concurrency: { type: 'string', default: '2' },
      list: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
} catch (error) {
  process.stderr.write(`mutate: ${(error as Error).message}\n\n${usage}`);
  process.exit(2);
}
const { values, positionals } = parsed;
if (values.help) {
  process.stdout.write(usage);
  process.exit(0);
}
async function main(): Promise<void> {
  const concurrency = Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    process.stderr.write(`mutate: --concurrency must be a whole number, at least 1\n\n${usage}`);
    return void process.exit(2);
  }
  const chosen =
    positionals.length === 0
      ? MUTATED_MODULES
      : MUTATED_MODULES.filter((module) => positionals.some((name) => module.file.includes(name)));
  if (chosen.length === 0) {
    process.stderr.write(`mutate: no module matches ${positionals.join(', ')} (see --list)\n`);
    return void process.exit(2);
  }

  const scores: Score[] = [];
  for (const [i, module] of chosen.entries()) {
    process.stderr.write(`mutating ${module.file} (${i + 1} of ${chosen.length})…\n`);
    const score = await mutate(module, concurrency);
    scores.push(score);
    process.stderr.write(
      `  ${score.score.toFixed(1)} % (${score.killed} killed, ${score.survived} survived, ${score.equivalent} equivalent, of ${score.mutants}) in ${Math.round(score.seconds)} s\n`,
    );
  }
  process.stdout.write('| module | mutants | killed | survived | equivalent | score |\n|---|---|---|---|---|---|\n');
  for (const s of scores) {
    process.stdout.write(
      `| ${s.file} | ${s.mutants} | ${s.killed} | ${s.survived} | ${s.equivalent} | ${s.score.toFixed(1)} %${s.score < BREAK_THRESHOLD ? ' (below the threshold)' : ''} |\n`,
    );
  }
  const below = scores.filter((s) => s.score < BREAK_THRESHOLD);
  process.stdout.write(
    below.length === 0
      ? `every module at ${BREAK_THRESHOLD} % or more\n`
      : `${below.length} module(s) below ${BREAK_THRESHOLD} %: see reports/mutation/<module>/survivors.txt\n`,
  );
  process.exitCode = below.length === 0 ? 0 : 1;
}

interface Score {
  file: string;
  mutants: number;
  killed: number;
  survived: number;
  equivalent: number;
  score: number;
  seconds: number;
}

const root = resolve(import.meta.dirname, '..', '..');

async function mutate(module: MutatedModule, concurrency: number): Promise<Score> {
  // Named by the whole path: two modules may share a file name (the svc and Transbank messages).
  const dir = join(root, 'reports', 'mutation', module.file.replace(/\.ts$/, '').replaceAll('/', '-'));
  mkdirSync(dir, { recursive: true });
  const report = join(dir, 'mutation.json');
  const config = {
    testRunner: 'command',
    // The tap binary itself, not through npx: npx costs half a second a mutant.
    commandRunner: { command: `node_modules/.bin/tap --reporter=silent --jobs=1 ${module.tests.join(' ')}` },
    mutate: [module.file],
    coverageAnalysis: 'off',
    concurrency,
    reporters: ['json', 'clear-text'],
    clearTextReporter: { allowColor: false, logTests: false },
    jsonReporter: { fileName: report },
    tempDirName: '.stryker-tmp',
    ignorePatterns: ['.tap', 'dist', 'data', 'bench-data', 'reports', '.stryker-tmp'],
    thresholds: { high: 95, low: BREAK_THRESHOLD, break: null },
  };
  const configPath = join(dir, 'stryker.config.json');
  writeFileSync(configPath, `${JSON.stringify(config, null, 2)}\n`);
  const started = performance.now();
  const log = await new Promise<string>((done, fail) => {
    const child = spawn('npx', ['stryker', 'run', configPath], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk));
    child.on('exit', (code) =>
      code === 0 ? done(out) : fail(new Error(`stryker exited with ${code}:\n${out.slice(-2000)}`)),
    );
  });
  writeFileSync(join(dir, 'survivors.txt'), log);
  const files = (JSON.parse(readFileSync(report, 'utf8')) as { files: Record<string, { mutants: ReportedMutant[] }> })
    .files;
  const mutants = Object.values(files).flatMap((file) => file.mutants);
  const killed = mutants.filter((m) => m.status === 'Killed' || m.status === 'Timeout').length;
  const survived = mutants.filter((m) => m.status === 'Survived' || m.status === 'NoCoverage').length;
  const equivalent = mutants.filter((m) => m.status === 'Ignored');
  writeFileSync(join(dir, 'equivalent.txt'), equivalentList(module.file, equivalent));
  const counted = killed + survived;
  return {
    file: module.file,
    mutants: mutants.length,
    killed,
    survived,
    equivalent: equivalent.length,
    score: counted === 0 ? 100 : (100 * killed) / counted,
    seconds: (performance.now() - started) / 1000,
  };
}

interface ReportedMutant {
  status: string;
  mutatorName: string;
  replacement?: string;
  statusReason?: string;
  location: { start: { line: number; column: number } };
}

/**
 * The mutants a `// Stryker disable` comment in the source declares
 * equivalent (no test can tell them apart from the original), each with the
 * reason written beside it; Stryker reports them as Ignored, left out of
 * the score.
 */
function equivalentList(file: string, mutants: ReportedMutant[]): string {
  if (mutants.length === 0) return `${file}: no mutant declared equivalent\n`;
  return mutants
    .map(
      (m) =>
        `${file}:${m.location.start.line}:${m.location.start.column} ${m.mutatorName}${m.replacement === undefined ? '' : ` -> ${m.replacement}`}\n    ${m.statusReason ?? 'no reason given'}\n`,
    )
    .join('');
}

if (values.list) {
  // Written in one go, then the exit waits for it: a pipe takes writes asynchronously.
  const text = MUTATED_MODULES.map((module) => `${module.file}\n    tests: ${module.tests.join(', ')}\n`).join('');
  process.stdout.write(text, () => process.exit(0));
} else {
  await main();
}
