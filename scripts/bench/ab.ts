// npm run bench:ab -- --other DIST [--duration 6] [--connections 16,64] [--rounds 6]
// An interleaved A/B of the signed settlement POST on the embedded store:
// this tree's server against another build's (DIST: the dist/ folder of
// another checkout, built the same way), in alternating rounds, so drift of
// a shared machine hits both alike. Reports throughput and server CPU per
// request of each, and B ÷ A, per connection count.
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { median } from './stats.js';
import { startBenchScript } from './compiled-server.js';
import { provisionWorld } from './pos-world.js';
import { cpuMs } from './process-cpu.js';
import { settlementRequests } from './settlement-requests.js';

const { values: args } = parseArgs({
  options: {
    other: { type: 'string' },
    duration: { type: 'string', default: '6' },
    connections: { type: 'string', default: '16,64' },
    rounds: { type: 'string', default: '6' },
    help: { type: 'boolean', short: 'h' },
  },
});
const usage = `usage: npm run bench:ab -- --other DIST [--duration S] [--connections N,N] [--rounds N]

A: the server of another build (DIST is its dist/ folder: git worktree add
/tmp/a REV && cd /tmp/a && npm ci && npm run build, then --other /tmp/a/dist).
B: this tree's. Each on the embedded store in a temp dir, one terminal,
signed settlement POSTs with a new batch each; rounds alternate A and B
(B first in even rounds). Prints each round and the medians of B ÷ A.
`;
if (args.help) {
  process.stdout.write(usage);
  process.exit(0);
}
const otherServer = args.other && resolve(args.other, 'scripts/bench/pos-server.js');
if (!otherServer || !existsSync(otherServer)) {
  process.stderr.write(`bench:ab: --other must be a dist/ folder with scripts/bench/pos-server.js\n\n${usage}`);
  process.exit(2);
}
const duration = Number(args.duration);
const rounds = Number(args.rounds);
const connectionCounts = args.connections.split(',').map(Number);
if (!(duration > 0 && duration <= 240) || !(rounds >= 1) || connectionCounts.some((n) => !(n >= 1))) {
  process.stderr.write(`bench:ab: bad --duration, --rounds or --connections\n\n${usage}`);
  process.exit(2);
}

interface Side {
  name: string;
  child: ChildProcess;
  url: string;
  secret: string;
}

async function measure(side: Side, connections: number, seconds: number): Promise<{ rps: number; cpuUs: number }> {
  const requests = settlementRequests('AB-1', side.secret, true, seconds);
  const before = cpuMs(side.child.pid!) ?? 0;
  const result = await autocannon({ url: side.url, connections, duration: seconds, requests });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${side.name}: ${result.non2xx} non-2xx answers and ${result.errors} errors`);
  const cpuUs = (((cpuMs(side.child.pid!) ?? 0) - before) * 1000) / result.requests.total;
  return { rps: result.requests.average, cpuUs };
}

const here = fileURLToPath(new URL('./pos-server.js', import.meta.url));
const dirs = [await mkdtemp(join(tmpdir(), 'bench-ab-a-')), await mkdtemp(join(tmpdir(), 'bench-ab-b-'))];
const sides: Side[] = [];
try {
  for (const [name, script, dir] of [
    ['A (other)', otherServer, dirs[0]!],
    ['B (this tree)', here, dirs[1]!],
  ] as const) {
    const started = await startBenchScript(script, [dir]);
    sides.push({ name, ...started, secret: (await provisionWorld(started.url, 'AB-1')).secret });
  }
  for (const side of sides) await measure(side, connectionCounts[0]!, 3); // warm-up
  for (const connections of connectionCounts) {
    process.stdout.write(
      `\n${connections} connections, ${duration} s a run\n| round | A req/s | B req/s | A µs CPU/req | B µs CPU/req |\n|---|---|---|---|---|\n`,
    );
    const ratios: Array<{ rps: number; cpu: number }> = [];
    for (let round = 1; round <= rounds; round += 1) {
      const order = round % 2 === 0 ? [1, 0] : [0, 1];
      const got: Array<{ rps: number; cpuUs: number }> = [];
      for (const index of order) got[index] = await measure(sides[index]!, connections, duration);
      const [a, b] = got as [{ rps: number; cpuUs: number }, { rps: number; cpuUs: number }];
      ratios.push({ rps: b.rps / a.rps, cpu: b.cpuUs / a.cpuUs });
      process.stdout.write(
        `| ${round} | ${Math.round(a.rps)} | ${Math.round(b.rps)} | ${a.cpuUs.toFixed(0)} | ${b.cpuUs.toFixed(0)} |\n`,
      );
    }
    process.stdout.write(
      `B ÷ A at ${connections} connections (median of ${rounds}): throughput ${median(ratios.map((r) => r.rps)).toFixed(3)}, CPU per request ${median(ratios.map((r) => r.cpu)).toFixed(3)}\n`,
    );
  }
} finally {
  for (const side of sides) side.child.kill();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
}
