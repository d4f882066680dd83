// npm run bench:pos [-- --duration 10 --connections 64]
// Signed settlement POST throughput against a bare Koa hello-world, against
// the same route unsigned and against a minimal durable route (a reference),
// and p99 latency at half the maximum rate, all measured in one run.
// Servers run in child processes; autocannon here.
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { pacedLoad, requireAllAnswered, type PacedResult } from './paced-load.js';
import { preparedSettlements, settlementRequests } from './settlement-requests.js';
import { formatSteal, machineCpu, median, stealPercent } from './stats.js';
import { postgresBin } from '../../server/store/postgres/pg-testing.js';
import { provisionWorld } from './pos-world.js';
import { cpuMs } from './process-cpu.js';
import { startBenchScript } from './compiled-server.js';
import { postgresRuns, type Measured } from './pos-postgres.js';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '6' },
    connections: { type: 'string', default: '64' },
    rounds: { type: 'string', default: '5' },
    'no-postgres': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h' },
  },
});
if (args.help) {
  process.stdout.write(`usage: npm run bench:pos -- [--duration SECONDS] [--connections N] [--rounds N] [--no-postgres]
Starts a bare Koa hello-world and the server (embedded store in a temp dir) in
child processes, then measures with autocannon, in interleaved rounds (5 by
default): the hello-world, signed settlement POSTs (a new batchNumber per
request), the same route unsigned, and a reference route doing only the
minimum (signature, JSON, a durable append: scripts/bench/minimal-route.ts).
Then p99 latency of signed POSTs at half the signed maximum rate, beside the
same measure of bare Koa at half its own maximum, in three paced rounds.
Every run shows steal, the CPU time the hypervisor took meanwhile
(from /proc/stat). Requests are made (and signed) before each run, so the
generator's own CPU is the same for signed and unsigned runs; --duration
is at most 240 s for that.
Then, where PostgreSQL's server binaries are installed (Debian's postgresql)
and unless --no-postgres, on a throwaway PostgreSQL cluster: signed
settlement POSTs on one instance beside the minimal durable route on the
same database (one INSERT a request), in --rounds interleaved rounds; and
1, 2 and 3 instances on the one database, the connections split between
them, for a write (signed settlement POSTs) and a read (a terminal's latest
settlement), in three interleaved rounds.
`);
  process.exit(0);
}
const duration = Number(args.duration);
const connections = Number(args.connections);
// Requests are signed before their run: a run must end well inside the 300 s signature tolerance.
if (!(duration > 0 && duration <= 240) || !(connections >= 1)) {
  process.stderr.write('bench:pos: --duration must be between 0 and 240 seconds and --connections at least 1\n');
  process.exit(2);
}
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** Starts a compiled script beside this one (npm run bench:pos builds first). */
const start = (script: string, scriptArgs: string[]) => startBenchScript(here(script), scriptArgs);

/** Registers an account and provisions a terminal on a server; answers its serial and secret. */
async function provision(baseUrl: string, serial: string): Promise<string> {
  return (await provisionWorld(baseUrl, serial)).secret;
}

/** One autocannon run; `options` is called just before it, so prepared requests are fresh. */
async function run(
  title: string,
  pid: number,
  options: (seconds: number) => autocannon.Options,
  seconds = duration,
): Promise<Measured> {
  process.stderr.write(`${title}…\n`);
  const prepared = options(seconds);
  const before = cpuMs(pid);
  const machineBefore = machineCpu();
  const result = await autocannon({ connections, ...prepared, duration: seconds });
  const after = cpuMs(pid);
  const steal = stealPercent(machineBefore, machineCpu());
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${title}: ${result.non2xx} non-2xx answers and ${result.errors} errors`);
  const cpuUs = before === null || after === null ? null : ((after - before) * 1000) / result.requests.total;
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, cpuUs, steal };
}

// Each paced run takes 2 + duration seconds; three interleaved rounds give a median without doubling the bench's time.
const PACED_ROUNDS = 3;

function pacedRow(round: number, name: string, rate: number, run: PacedResult): string {
  return `| ${round} | ${name} | ${rate} | ${run.p50.toFixed(1)} | ${run.p99.toFixed(1)} | ${run.max.toFixed(1)} | ${run.sendLagP99.toFixed(1)} | ${formatSteal(run.steal)} |`;
}

const dirs = [
  await mkdtemp(join(tmpdir(), 'bench-pos-signed-')),
  await mkdtemp(join(tmpdir(), 'bench-pos-unsigned-')),
  await mkdtemp(join(tmpdir(), 'bench-pos-minimal-')),
];
const children: ChildProcess[] = [];
const cleanups: Array<() => void> = [];
try {
  const bare = await start('./bare-koa.js', []);
  const signedServer = await start('./pos-server.js', [dirs[0]!]);
  const unsignedServer = await start('./pos-server.js', [dirs[1]!, '--unsigned']);
  children.push(bare.child, signedServer.child, unsignedServer.child);
  const secret = await provision(signedServer.url, 'BENCH-1');
  await provision(unsignedServer.url, 'BENCH-1');
  // The reference route checks the same terminal's signatures, so it takes the same requests.
  const minimal = await start('./minimal-route.js', [dirs[2]!, secret]);
  children.push(minimal.child);

  const targets = {
    bare: { name: 'bare Koa hello-world (baseline)', pid: bare.child.pid!, options: () => ({ url: bare.url }) },
    signed: {
      name: 'signed settlement POST, new batch each',
      pid: signedServer.child.pid!,
      options: (seconds: number) => ({
        url: signedServer.url,
        requests: settlementRequests('BENCH-1', secret, true, seconds),
      }),
    },
    unsigned: {
      name: 'same route, unsigned',
      pid: unsignedServer.child.pid!,
      options: (seconds: number) => ({
        url: unsignedServer.url,
        requests: settlementRequests('BENCH-1', secret, false, seconds),
      }),
    },
    minimal: {
      name: 'minimal durable signed route (reference)',
      pid: minimal.child.pid!,
      options: (seconds: number) => ({
        url: minimal.url,
        requests: settlementRequests('BENCH-1', secret, true, seconds),
      }),
    },
  } as const;
  for (const target of Object.values(targets)) await run(`warm-up: ${target.name}`, target.pid, target.options, 3);

  // Interleaved rounds: drift of the machine's speed hits all three alike; the median ratio is reported.
  const rounds: Array<Record<keyof typeof targets, Measured>> = [];
  for (let round = 1; round <= Number(args.rounds); round += 1) {
    const measured = {} as Record<keyof typeof targets, Measured>;
    for (const [key, target] of Object.entries(targets) as Array<
      [keyof typeof targets, (typeof targets)[keyof typeof targets]]
    >) {
      measured[key] = await run(`round ${round}: ${target.name}`, target.pid, target.options);
    }
    rounds.push(measured);
  }
  const vsBare = median(rounds.map((r) => r.signed.rps / r.bare.rps));
  const vsUnsigned = median(rounds.map((r) => r.signed.rps / r.unsigned.rps));
  const minimalVsBare = median(rounds.map((r) => r.minimal.rps / r.bare.rps));
  const vsMinimal = median(rounds.map((r) => r.signed.rps / r.minimal.rps));
  // Server CPU a request, signed ÷ the reference, where /proc says it.
  const cpuRatios = rounds.flatMap((r) =>
    r.signed.cpuUs !== null && r.minimal.cpuUs ? [r.signed.cpuUs / r.minimal.cpuUs] : [],
  );
  const signedMax = median(rounds.map((r) => r.signed.rps));
  const halfRate = Math.floor(signedMax / 2);
  // The same measure of the baseline: bare Koa paced at half its own maximum, with the same generator.
  const bareHalfRate = Math.floor(median(rounds.map((r) => r.bare.rps)) / 2);
  const pacedRounds: Array<{ signed: PacedResult; bare: PacedResult }> = [];
  for (let round = 1; round <= PACED_ROUNDS; round += 1) {
    process.stderr.write(
      `paced round ${round}: signed settlement POST at ${halfRate}/s, bare Koa at ${bareHalfRate}/s…\n`,
    );
    // Prepared for the warm-up (2 s) and the measured window alike; one in 50 spare.
    const next = preparedSettlements('BENCH-1', secret, true, (duration + 2) * halfRate * 1.02);
    const signed = requireAllAnswered(
      'paced signed POSTs',
      await pacedLoad({ baseUrl: signedServer.url, rate: halfRate, durationS: duration, next }),
    );
    const bareRun = requireAllAnswered(
      'paced bare Koa',
      await pacedLoad({
        baseUrl: bare.url,
        rate: bareHalfRate,
        durationS: duration,
        next: () => ({ method: 'GET', path: '/', headers: {} }),
      }),
    );
    pacedRounds.push({ signed, bare: bareRun });
  }
  const pacedP99 = median(pacedRounds.map((r) => r.signed.p99));
  const bareP99 = median(pacedRounds.map((r) => r.bare.p99));

  const postgres = args['no-postgres']
    ? 'skipped (--no-postgres)'
    : postgresBin()
      ? await postgresRuns(
          {
            start,
            run,
            children,
            cleanups,
            duration,
            connections,
            rounds: Number(args.rounds),
            pacedRounds: PACED_ROUNDS,
          },
          signedMax,
          median(rounds.map((r) => r.minimal.rps)),
          secret,
        )
      : "skipped: no PostgreSQL server binaries here (Debian's postgresql package)";

  const cell = (m: Measured) =>
    `${m.rps.toFixed(0)} | ${m.p50} | ${m.p99} | ${m.cpuUs === null ? 'n/a' : m.cpuUs.toFixed(0)} | ${formatSteal(m.steal)}`;
  const lines = rounds.flatMap((r, i) =>
    (Object.keys(targets) as Array<keyof typeof targets>).map(
      (key) => `| ${i + 1} | ${targets[key].name} | ${cell(r[key])} |`,
    ),
  );
  process.stdout.write(`
${connections} connections, ${duration} s a run, ${rounds.length} interleaved rounds after a warm-up; each server in its own process;
durable store (each answer after fdatasync). Server CPU is user + system time of the server process per answered request.

| round | run | req/s | p50 ms | p99 ms | server CPU µs/req | steal |
|---|---|---|---|---|---|---|
${lines.join('\n')}

Open loop, paced at half the median maximum for ${duration} s after 2 s at the same rate, ${PACED_ROUNDS} interleaved rounds; latency from each
request's due time. Bare Koa, paced at half its own maximum, is the same measure of the baseline. Steal: the share of the
machine's CPU time the hypervisor took for other guests during the run (/proc/stat).

| round | run | rate /s | p50 ms | p99 ms | max ms | generator late, p99 ms | steal |
|---|---|---|---|---|---|---|---|
${pacedRounds.flatMap((r, i) => [pacedRow(i + 1, 'signed settlement POST', halfRate, r.signed), pacedRow(i + 1, 'bare Koa hello-world', bareHalfRate, r.bare)]).join('\n')}

signed / bare Koa (median of rounds): ${(vsBare * 100).toFixed(1)} % (target >= 35 %, stretch 50 %)
signed / unsigned (median of rounds): ${(vsUnsigned * 100).toFixed(1)} % (target >= 85 %)
The reference, a minimal durable signed route (scripts/bench/minimal-route.ts): ${(minimalVsBare * 100).toFixed(1)} % of bare Koa; signed / it: ${(vsMinimal * 100).toFixed(1)} % (target >= 70 %)
Server CPU a request, signed / the reference (median of rounds): ${cpuRatios.length > 0 ? median(cpuRatios).toFixed(2) : 'n/a (no /proc)'} (target <= 1.3; where it goes: npm run bench:profile)
p99 at half the max rate (median of rounds): ${pacedP99.toFixed(1)} ms (target <= 10 ms); bare Koa at half its max: ${bareP99.toFixed(1)} ms

The server on PostgreSQL:

${postgres}
`);
} finally {
  for (const child of children) child.kill('SIGTERM');
  for (const cleanup of cleanups) cleanup();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
}
