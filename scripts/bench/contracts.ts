// npm run bench:contracts [-- --rounds 3]
// The contract suite's whole run with --allow-mutations, in each profile,
// as CI runs it: the compiled svc-contracts against the compiled server on
// the embedded store, each in its own process. Issue 19's goal: a whole run
// under 60 s, ladder waits included.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { median } from './stats.js';

const { values: args } = parseArgs({
  options: { rounds: { type: 'string', default: '3' }, help: { type: 'boolean', short: 'h' } },
});
if (args.help) {
  process.stdout.write(`usage: npm run bench:contracts -- [--rounds N]
Starts the compiled server on a fresh embedded store, then runs the compiled
svc-contracts --allow-mutations against it N times (default 3) in each
profile, interleaved, and reports the wall time of each whole run, its
median, and its share of the 60 s goal.
`);
  process.exit(0);
}
const rounds = Number(args.rounds);
if (!(Number.isInteger(rounds) && rounds >= 1)) {
  process.stderr.write('bench:contracts: --rounds must be a whole number from 1\n');
  process.exit(2);
}

const GOAL_S = 60;
const server = fileURLToPath(new URL('../../server/main.js', import.meta.url));
const cli = fileURLToPath(new URL('../../contracts/suite/cli.js', import.meta.url));
const dir = await mkdtemp(join(tmpdir(), 'bench-contracts-'));
const child = spawn(process.execPath, [server], {
  env: { ...process.env, DATA_DIR: dir, PORT: '0', LOG_LEVEL: 'warn' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
try {
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the server exited with ${code}`)));
  });

  /** One whole run: its wall time, exit code and summary line. */
  const runOnce = (profile: string) =>
    new Promise<{ seconds: number; code: number | null; checks: string }>((resolve) => {
      const started = performance.now();
      const run = spawn(process.execPath, [cli, '--base-url', baseUrl, '--allow-mutations', '--profile', profile], {
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      let out = '';
      run.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
      run.once('exit', (code) =>
        resolve({
          seconds: (performance.now() - started) / 1000,
          code,
          checks: /^checks: .*$/m.exec(out)?.[0] ?? out.slice(-300),
        }),
      );
    });

  const times: Record<string, number[]> = { interface: [], strict: [] };
  for (let round = 1; round <= rounds; round += 1) {
    for (const profile of ['interface', 'strict']) {
      const result = await runOnce(profile);
      process.stdout.write(
        `round ${round} ${profile}: ${result.seconds.toFixed(1)} s, exit ${result.code}; ${result.checks}\n`,
      );
      if (result.code !== 0)
        throw new Error(
          `svc-contracts --profile ${profile} exited ${result.code}: the figure would not be of a passing run`,
        );
      times[profile]!.push(result.seconds);
    }
  }
  process.stdout.write('\n| profile | whole run, median | range | share of the 60 s goal |\n|---|---|---|---|\n');
  for (const [profile, seconds] of Object.entries(times)) {
    const m = median(seconds);
    process.stdout.write(
      `| ${profile} | ${m.toFixed(1)} s | ${Math.min(...seconds).toFixed(1)}–${Math.max(...seconds).toFixed(1)} s | ${((m / GOAL_S) * 100).toFixed(0)} % |\n`,
    );
  }
} finally {
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  await rm(dir, { recursive: true, force: true });
}
