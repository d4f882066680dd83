// npm run bench:reads [-- --sizes 10000,100000,200000 --duration 3 --rounds 3 --no-postgres]
// Reads and writes as data grows, through the HTTP API of the compiled
// server, on each store at each size, in one run: each figure against the
// same store at the smallest size, and PostgreSQL against the embedded
// store at the same size.
import { type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { postgresBin, startThrowawayPostgres } from '../../server/store/postgres/pg-testing.js';
import { startCompiledServer } from './compiled-server.js';
import { settlementRequests } from './settlement-requests.js';
import { median } from './stats.js';
import { type ReadsWorld, register, seedLowdb, seedPostgres } from './reads-world.js';

const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10000,100000,200000' },
    duration: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '16' },
    'write-connections': { type: 'string', default: '64' },
    'no-postgres': { type: 'boolean', default: false },
    explain: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h' },
  },
});
if (args.help) {
  process.stdout
    .write(`usage: npm run bench:reads -- [--sizes N,N,…] [--duration S] [--rounds N] [--connections N] [--write-connections N] [--no-postgres] [--explain]

For each store (the embedded one, and PostgreSQL on a throwaway cluster
where its binaries are installed) and each size in --sizes (10,000, 100,000
and 200,000 by default): seeds that many records of other merchants,
terminals and accounts beside one account's own, and starts the compiled
server on it. All of them run at once; then, in --rounds interleaved rounds
(3 by default) of --duration seconds a run, autocannon measures every read
(the latest settlement of a terminal, a merchant's first page of orders,
settlements sorted by debitBatch, the console trace, the console progress)
and signed settlement POSTs (a new batch each) on every server. Reported:
medians of the rounds, each store's figures at every size against its
smallest, and PostgreSQL against the embedded store at the same size. Also
the start-up time and the first read of each (which builds the indexes it
uses). --explain prints PostgreSQL's plans of two reads.
`);
  process.exit(0);
}
const duration = Number(args.duration);
const rounds = Number(args.rounds);
const connections = Number(args.connections);
const writeConnections = Number(args['write-connections']);
const sizes = args.sizes.split(',').map(Number);
if (
  sizes.length === 0 ||
  sizes.some((size) => !Number.isSafeInteger(size) || size < 0) ||
  !(duration > 0) ||
  !(rounds >= 1)
) {
  process.stderr.write(
    'bench:reads: --sizes is a list of record counts (10000,100000), --duration seconds above 0, --rounds at least 1\n',
  );
  process.exit(2);
}

const startServer = (env: Record<string, string>) => startCompiledServer(env, ['--max-old-space-size=8192']);

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

const READS: Array<{ name: string; path: (w: ReadsWorld) => string; console?: boolean }> = [
  {
    name: 'latest settlement of a terminal (sort=-closedAt&size=1)',
    path: (w) => `/api/v1/merchants/${w.merchantId}/pos-terminals/${w.serial}/settlements?sort=-closedAt&size=1`,
  },
  {
    name: "merchant's orders, first page (size=20)",
    path: (w) => `/api/v1/merchants/${w.merchantId}/transactions?size=20`,
  },
  {
    name: 'settlements sorted by debitBatch (size=5)',
    path: (w) => `/api/v1/merchants/${w.merchantId}/pos-terminals/${w.serial}/settlements?sort=debitBatch&size=5`,
  },
  { name: 'console trace (limit=100)', path: () => '/console/trace?limit=100', console: true },
  { name: 'console progress', path: () => '/console/progress', console: true },
];

interface Target {
  store: 'embedded' | 'postgres';
  size: number;
  url: string;
  child: ChildProcess;
  world: ReadsWorld;
  startMs: number;
  /** The first answer of each read, in ms (it builds what the read needs). */
  first: number[];
  /** req/s of each read, a list of rounds each. */
  reads: number[][];
  /** req/s of signed settlement POSTs, one per round. */
  writes: number[];
}

/** Seeds a store of `size` records, starts the server on it, and reads each read once. */
async function prepare(
  store: Target['store'],
  size: number,
  cleanups: Array<() => Promise<void> | void>,
): Promise<Target> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-reads-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const cluster = store === 'postgres' ? startThrowawayPostgres() : null;
  if (cluster) cleanups.push(cluster.stop);
  const env: Record<string, string> = cluster ? { DATABASE_URL: cluster.url } : { DATA_DIR: dir };
  const empty = await startServer(env);
  const world = await register(empty.url);
  await stopServer(empty.child);
  const seeding = performance.now();
  if (cluster) await seedPostgres(cluster.url, world, size, Boolean(args.explain));
  else await seedLowdb(dir, world, size);
  process.stderr.write(
    `${store}: seeded ${size.toLocaleString('en')} records in ${((performance.now() - seeding) / 1000).toFixed(1)} s\n`,
  );
  const server = await startServer(env);
  cleanups.push(() => stopServer(server.child));
  const first: number[] = [];
  for (const read of READS) {
    const started = performance.now();
    const response = await fetch(new URL(read.path(world), server.url), { headers: readHeaders(read, world) });
    if (response.status !== 200) throw new Error(`${read.name}: ${response.status} ${await response.text()}`);
    first.push(performance.now() - started);
  }
  return {
    store,
    size,
    url: server.url,
    child: server.child,
    world,
    startMs: server.ms,
    first,
    reads: READS.map(() => []),
    writes: [],
  };
}

const readHeaders = (read: (typeof READS)[number], world: ReadsWorld) => ({
  authorization: `Bearer ${read.console ? world.consoleToken : world.token}`,
});

async function measureRead(target: Target, index: number): Promise<void> {
  const read = READS[index]!;
  const result = await autocannon({
    url: new URL(read.path(target.world), target.url).toString(),
    headers: readHeaders(read, target.world),
    connections,
    duration,
  });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(
      `${read.name} on ${target.store} at ${target.size}: ${result.non2xx} non-2xx answers, ${result.errors} errors`,
    );
  target.reads[index]!.push(result.requests.average);
}

async function measureWrites(target: Target): Promise<void> {
  const result = await autocannon({
    url: target.url,
    connections: writeConnections,
    duration,
    requests: settlementRequests(target.world.serial, target.world.secret, true, duration),
  });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(
      `settlement POSTs on ${target.store} at ${target.size}: ${result.non2xx} non-2xx answers, ${result.errors} errors`,
    );
  target.writes.push(result.requests.average);
}

const n = (value: number) => value.toLocaleString('en', { maximumFractionDigits: 0 });
const ratio = (a: number, b: number) => (a / b).toFixed(2);

function report(targets: Target[]): string {
  const stores = [...new Set(targets.map((target) => target.store))];
  const of = (store: Target['store'], size: number) =>
    targets.find((target) => target.store === store && target.size === size)!;
  const lines: string[] = [];
  lines.push(
    `${rounds} interleaved rounds of ${duration} s a run; every server up at once; req/s are medians of the rounds (reads: ${connections} connections, writes: ${writeConnections}).`,
    '',
  );
  lines.push(
    '| server | records | start-up s | RSS MB | ' +
      READS.map((read) => read.name).join(' | ') +
      ' | signed settlement POST |',
  );
  lines.push('|---|---|---|---|' + READS.map(() => '---|').join('') + '---|');
  for (const target of targets) {
    const rss =
      Number(readFileSync(`/proc/${target.child.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)?.[1] ?? 0) / 1024;
    lines.push(
      `| ${target.store} | ${n(target.size)} | ${(target.startMs / 1000).toFixed(2)} | ${rss.toFixed(0)} | ${target.reads.map((runs) => n(median(runs))).join(' | ')} | ${n(median(target.writes))} |`,
    );
  }
  lines.push('', 'Each store at each size against itself at the smallest (goal ≥ 0.90):', '');
  lines.push('| server | records | ' + READS.map((read) => read.name).join(' | ') + ' | signed settlement POST |');
  lines.push('|---|---|' + READS.map(() => '---|').join('') + '---|');
  for (const store of stores) {
    const base = of(store, sizes[0]!);
    for (const size of sizes.slice(1)) {
      const target = of(store, size);
      lines.push(
        `| ${store} | ${n(size)} ÷ ${n(base.size)} | ${target.reads.map((runs, i) => ratio(median(runs), median(base.reads[i]!))).join(' | ')} | ${ratio(median(target.writes), median(base.writes))} |`,
      );
    }
  }
  if (stores.includes('postgres')) {
    lines.push('', 'PostgreSQL against the embedded store at the same size (goal for the reads ≥ 0.50):', '');
    lines.push('| records | ' + READS.map((read) => read.name).join(' | ') + ' | signed settlement POST |');
    lines.push('|---|' + READS.map(() => '---|').join('') + '---|');
    for (const size of sizes) {
      const pg = of('postgres', size);
      const embedded = of('embedded', size);
      lines.push(
        `| ${n(size)} | ${pg.reads.map((runs, i) => ratio(median(runs), median(embedded.reads[i]!))).join(' | ')} | ${ratio(median(pg.writes), median(embedded.writes))} |`,
      );
    }
  }
  lines.push('', 'First read (builds what it needs), ms:', '');
  lines.push('| server | records | ' + READS.map((read) => read.name).join(' | ') + ' |');
  lines.push('|---|---|' + READS.map(() => '---|').join(''));
  for (const target of targets)
    lines.push(`| ${target.store} | ${n(target.size)} | ${target.first.map((ms) => ms.toFixed(0)).join(' | ')} |`);
  return lines.join('\n');
}

const stores: Array<Target['store']> = [
  'embedded',
  ...(!args['no-postgres'] && postgresBin() ? (['postgres'] as const) : []),
];
const cleanups: Array<() => Promise<void> | void> = [];
try {
  const targets: Target[] = [];
  for (const store of stores) for (const size of sizes) targets.push(await prepare(store, size, cleanups));
  for (let round = 1; round <= rounds; round += 1) {
    for (const [index, read] of READS.entries()) {
      process.stderr.write(`round ${round}: ${read.name}\n`);
      for (const target of targets) await measureRead(target, index);
    }
    process.stderr.write(`round ${round}: signed settlement POSTs\n`);
    for (const target of targets) await measureWrites(target);
  }
  process.stdout.write(
    `\nbench:reads, ${new Date().toISOString().slice(0, 10)}, Node ${process.versions.node}; the account's own 6,000 records beside the others\n\n${report(targets)}\n`,
  );
  if (!stores.includes('postgres'))
    process.stdout.write(
      `\nPostgreSQL: ${args['no-postgres'] ? 'skipped (--no-postgres)' : "skipped: no PostgreSQL server binaries here (Debian's postgresql package)"}\n`,
    );
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup();
}
