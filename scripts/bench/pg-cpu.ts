// npm run bench:pgcpu [-- --duration 6 --terminals 16 --rounds 3 --variants default,generic]
// Where PostgreSQL's CPU goes per signed settlement POST, beside the
// minimal durable INSERT of the same body through the same driver, in one
// run: the backends' CPU from /proc, planning against execution and how
// often a statement is planned (pg_stat_statements with track_planning),
// statements a write, and the commit's WAL writes and flushes
// (pg_stat_wal with track_wal_io_timing). Each server variant (the
// product as it is, or with a PostgreSQL setting given on its connection)
// is measured in interleaved rounds with the reference.
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { postgresBin } from '../../server/store/postgres/pg-testing.js';
import { benchCluster } from './bench-cluster.js';
import { median } from './stats.js';
import { startBenchScript, startCompiledServer } from './compiled-server.js';
import { provisionTerminals } from './pos-world.js';
import { cpuMs, postgresCpu, postgresCpuSince } from './process-cpu.js';
import { settlementRequests } from './settlement-requests.js';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '6' },
    terminals: { type: 'string', default: '16' },
    rounds: { type: 'string', default: '3' },
    variants: { type: 'string', default: 'default' },
    help: { type: 'boolean', short: 'h' },
  },
});
/** A variant: a name, and the PostgreSQL settings its connections set (libpq's `options`). */
const VARIANTS: Record<string, string> = {
  default: '',
  generic: '-c plan_cache_mode=force_generic_plan',
  custom: '-c plan_cache_mode=force_custom_plan',
};
const usage = `usage: npm run bench:pgcpu -- [--duration S] [--terminals N] [--rounds N] [--variants ${Object.keys(VARIANTS).join(',')}]

On a throwaway PostgreSQL cluster (fsync on, pg_stat_statements with
track_planning, track_wal_io_timing): signed settlement POSTs from N
terminals at once (one connection each) against the compiled server,
beside the minimal durable route on the same database (one prepared
INSERT of the same body a request, the same driver, N connections), in
interleaved rounds. Per write: PostgreSQL's CPU (all its processes, from
/proc), the server's CPU, statements, planning and execution time and how
many calls were planned, WAL records, bytes, writes and flushes. Each
variant runs the server with the PostgreSQL setting it names on its
connections: default (as shipped), generic (force_generic_plan), custom.
`;
if (args.help) {
  process.stdout.write(usage);
  process.exit(0);
}
const seconds = Number(args.duration);
const terminalCount = Number(args.terminals);
const rounds = Number(args.rounds);
const variants = args.variants.split(',');
if (
  !postgresBin() ||
  !(seconds > 0) ||
  !(terminalCount >= 1) ||
  !(rounds >= 1) ||
  variants.some((v) => !(v in VARIANTS))
) {
  process.stderr.write(
    postgresBin()
      ? `bench:pgcpu: check the arguments\n\n${usage}`
      : "bench:pgcpu: no PostgreSQL server binaries: install Debian's postgresql package\n",
  );
  process.exit(2);
}

const { cluster, children, dirs } = await benchCluster([
  "shared_preload_libraries = 'pg_stat_statements'",
  'track_wal_io_timing = on',
  'max_connections = 200',
]);
const db = new pg.Client({ connectionString: cluster.url });
await db.connect();
await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
// Known only once the library is loaded; a reload is enough for it.
await db.query('ALTER SYSTEM SET pg_stat_statements.track_planning = on');
await db.query('SELECT pg_reload_conf()');

const withOptions = (url: string, options: string) => {
  if (!options) return url;
  const parsed = new URL(url);
  parsed.searchParams.set('options', options);
  return parsed.toString();
};

interface Target {
  name: string;
  child: ChildProcess;
  /** One autocannon run's requests per terminal, each with one connection. */
  load: (seconds: number) => Array<{ url: string; requests: autocannon.Request[]; connections: number }>;
}

const targets: Target[] = [];
let world: Awaited<ReturnType<typeof provisionTerminals>>['world'] | undefined;
const terminals: Array<{ serial: string; secret: string }> = [];
for (const variant of variants) {
  const started = await startCompiledServer({ DATABASE_URL: withOptions(cluster.url, VARIANTS[variant]!) });
  children.push(started.child);
  if (!world) {
    const made = await provisionTerminals(started.url, 'CPU', terminalCount);
    world = made.world;
    terminals.push(...made.terminals);
  }
  targets.push({
    name: `signed settlement POST (${variant})`,
    child: started.child,
    load: (s) =>
      terminals.map((terminal) => ({
        url: started.url,
        connections: 1,
        requests: settlementRequests(terminal.serial, terminal.secret, true, s, 2000),
      })),
  });
}
const referenceDir = await mkdtemp(join(tmpdir(), 'bench-pgcpu-'));
dirs.push(referenceDir);
const reference = await startBenchScript(fileURLToPath(new URL('./minimal-route.js', import.meta.url)), [
  referenceDir,
  terminals[0]!.secret,
  '--postgres',
  cluster.url,
]);
children.push(reference.child);
targets.push({
  name: 'minimal durable INSERT route (reference)',
  child: reference.child,
  load: (s) => [
    {
      url: reference.url,
      connections: terminalCount,
      requests: settlementRequests('CPU-0', terminals[0]!.secret, true, s, 2000 * terminalCount),
    },
  ],
});

interface Measured {
  writes: number;
  pgUs: number;
  /** Of pgUs: the client backends' share (the statements, their protocol and commit). */
  backendUs: number;
  /** Of pgUs: autovacuum's, and the other background processes' (WAL writer, checkpointer…). */
  autovacuumUs: number;
  backgroundUs: number;
  serverUs: number;
  statements: number;
  plannedShare: number;
  planUs: number;
  execUs: number;
  walRecords: number;
  walBytes: number;
  walWrites: number;
  walSyncs: number;
  syncUs: number;
}

/** A process's title (PostgreSQL sets it to what the process is), or undefined once it is gone. */
function processTitle(pid: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return undefined;
  }
}

/** PostgreSQL's CPU since `before` by kind of process, from each one's title (/proc/PID/cmdline), in ms. */
function postgresCpuByKind(before: Map<string, number>): { backend: number; autovacuum: number; background: number } {
  const kinds = { backend: 0, autovacuum: 0, background: 0 };
  for (const [pid, ms] of postgresCpu()) {
    const title = processTitle(pid);
    if (title === undefined) continue;
    const used = ms - (before.get(pid) ?? 0);
    if (title.includes('autovacuum')) kinds.autovacuum += used;
    else if (/\[local\]|\d+\.\d+\.\d+\.\d+\(/.test(title)) kinds.backend += used;
    else kinds.background += used;
  }
  return kinds;
}

async function measure(target: Target, s: number): Promise<Measured> {
  await db.query('SELECT pg_stat_statements_reset()');
  await db.query("SELECT pg_stat_reset_shared('wal')");
  const pgBefore = postgresCpu();
  const serverBefore = cpuMs(target.child.pid!) ?? 0;
  const results = await Promise.all(
    target.load(s).map(({ url, requests, connections }) => autocannon({ url, connections, duration: s, requests })),
  );
  const pgMs = postgresCpuSince(pgBefore);
  const byKind = postgresCpuByKind(pgBefore);
  const serverMs = (cpuMs(target.child.pid!) ?? 0) - serverBefore;
  const writes = results.reduce((sum, r) => sum + r['2xx'], 0);
  const bad = results.reduce((sum, r) => sum + r.non2xx + r.errors, 0);
  if (bad > 0) throw new Error(`${target.name}: ${bad} answers that are not 2xx`);
  // The statements of the writes (this bench's own queries left out).
  const { rows } = await db.query<{ calls: string; plans: string; plan: string; exec: string }>(
    `SELECT sum(calls) AS calls, sum(plans) AS plans, sum(total_plan_time) AS plan, sum(total_exec_time) AS exec
       FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat%' AND query NOT LIKE 'SELECT $1%'`,
  );
  const wal = (
    await db.query<{ r: string; b: string; w: string; s: string; st: string }>(
      'SELECT wal_records AS r, wal_bytes AS b, wal_write AS w, wal_sync AS s, wal_sync_time AS st FROM pg_stat_wal',
    )
  ).rows[0]!;
  const per = (value: number) => value / (writes || 1);
  const calls = Number(rows[0]?.calls ?? 0);
  return {
    writes,
    pgUs: per(pgMs * 1000),
    backendUs: per(byKind.backend * 1000),
    autovacuumUs: per(byKind.autovacuum * 1000),
    backgroundUs: per(byKind.background * 1000),
    serverUs: per(serverMs * 1000),
    statements: per(calls),
    plannedShare: Number(rows[0]?.plans ?? 0) / (calls || 1),
    planUs: per(Number(rows[0]?.plan ?? 0) * 1000),
    execUs: per(Number(rows[0]?.exec ?? 0) * 1000),
    walRecords: per(Number(wal.r)),
    walBytes: per(Number(wal.b)),
    walWrites: per(Number(wal.w)),
    walSyncs: per(Number(wal.s)),
    syncUs: per(Number(wal.st) * 1000),
  };
}

for (const target of targets) await measure(target, 2); // warm-up: connections made, statements prepared
const byTarget = new Map<Target, Measured[]>(targets.map((target) => [target, []]));
for (let round = 1; round <= rounds; round += 1) {
  for (const target of round % 2 ? targets : [...targets].reverse()) {
    process.stderr.write(`round ${round}: ${target.name}…\n`);
    byTarget.get(target)!.push(await measure(target, seconds));
  }
}
const med = (list: Measured[], key: keyof Measured) => median(list.map((m) => m[key]));
const ref = byTarget.get(targets.at(-1)!)!;
process.stdout.write(
  `## bench:pgcpu (${terminalCount} writes at once, ${seconds} s a run, medians of ${rounds} interleaved rounds)\n\n` +
    '| per write | PostgreSQL CPU µs | ÷ reference | of which backends / autovacuum / other µs | server CPU µs | statements | planned per call | plan µs | execution µs | WAL records | WAL bytes | WAL writes | flushes | flush µs | writes/s |\n' +
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n',
);
for (const [target, list] of byTarget) {
  process.stdout.write(
    `| ${target.name} | ${med(list, 'pgUs').toFixed(0)} | ${(med(list, 'pgUs') / med(ref, 'pgUs')).toFixed(2)} | ${med(list, 'backendUs').toFixed(0)} / ${med(list, 'autovacuumUs').toFixed(0)} / ${med(list, 'backgroundUs').toFixed(0)} | ${med(list, 'serverUs').toFixed(0)} | ${med(list, 'statements').toFixed(2)} | ${med(list, 'plannedShare').toFixed(2)} | ${med(list, 'planUs').toFixed(1)} | ${med(list, 'execUs').toFixed(1)} | ${med(list, 'walRecords').toFixed(1)} | ${med(list, 'walBytes').toFixed(0)} | ${med(list, 'walWrites').toFixed(2)} | ${med(list, 'walSyncs').toFixed(2)} | ${med(list, 'syncUs').toFixed(0)} | ${(med(list, 'writes') / seconds).toFixed(0)} |\n`,
  );
}
await db.end();
process.exit(0);
