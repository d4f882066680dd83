// npm run bench:scale [-- --instances 1,2,4,8 --duration 8 --connections 128 --terminals 64 --generators 6]
// Instances of the compiled server on one PostgreSQL database (a throwaway
// cluster, fsync on): for each count, signed settlement writes and signed
// reads of a terminal's latest settlement from several generator
// processes, PostgreSQL's wait events sampled meanwhile; PostgreSQL's own
// ceiling in the same run (pgbench, one durable INSERT of the same JSON
// body a transaction); and every acknowledged write counted in the
// database afterwards. Instance counts past the machine's cores are left
// out. It runs unchanged on two cores (the shape only) and on many.
import { execFile, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { postgresBin } from '../../server/store/postgres/pg-testing.js';
import { benchCluster } from './bench-cluster.js';
import { startCompiledServer } from './compiled-server.js';
import { provisionTerminals } from './pos-world.js';
import { cpuList, onCores, pin, pinPostgres, planCpus } from './cpu-sets.js';
import { cpuByPart, cpuTimes, pgbenchInsertCeiling } from './scale-parts.js';

const { values: args } = parseArgs({
  options: {
    instances: { type: 'string', default: '1,2,4,8' },
    duration: { type: 'string', default: '8' },
    connections: { type: 'string', default: '128' },
    terminals: { type: 'string', default: '64' },
    generators: { type: 'string', default: String(Math.max(1, Math.min(6, Math.floor(availableParallelism() / 2)))) },
    pin: { type: 'boolean', default: false },
    'postgres-cores': { type: 'string', default: String(Math.max(1, Math.floor(availableParallelism() / 4))) },
    help: { type: 'boolean', short: 'h' },
  },
});
if (args.help) {
  process.stdout
    .write(`usage: npm run bench:scale -- [--instances 1,2,4,8] [--duration S] [--connections N] [--terminals N] [--generators N]
                            [--pin [--postgres-cores N]]
Signed writes and reads against 1, 2, 4 and 8 instances on one PostgreSQL
database, beside pgbench's durable INSERT ceiling, with PostgreSQL's top
wait events, its CPU and the instances' per write, and a count of
acknowledged writes missing afterwards. Needs PostgreSQL's server binaries
(pgbench among them).
--pin: as separate machines would see it (Linux, taskset): PostgreSQL on
--postgres-cores cores of its own (a quarter by default), each instance on
one core of its own, the generators and pgbench's client on the rest;
instance counts that leave no core for the generators are left out.
`);
  process.exit(0);
}
const cores = availableParallelism();
// As many one-core instances as the largest count asks for; the generators get every core left.
const largest = Math.max(...args.instances.split(',').map(Number));
const plan = args.pin ? planCpus(cores, Number(args['postgres-cores']), largest) : undefined;
const counts = args.instances
  .split(',')
  .map(Number)
  .filter((n) => n >= 1 && n <= (plan ? plan.instances.length : cores));
const seconds = Number(args.duration);
const connections = Number(args.connections);
const terminalCount = Number(args.terminals);
const generators = Number(args.generators);
const bin = postgresBin();
if (
  !bin ||
  counts.length === 0 ||
  !(seconds > 0) ||
  !(connections >= 1) ||
  !(terminalCount >= 1) ||
  !(generators >= 1)
) {
  process.stderr.write(
    bin
      ? 'bench:scale: check the numbers (see --help)\n'
      : "bench:scale: no PostgreSQL server binaries: install Debian's postgresql package\n",
  );
  process.exit(2);
}

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
/** A generator's command line: on the generators' cores when pinned. */
const generatorCommand = (command: string, commandArgs: string[]): [string, string[]] =>
  plan ? onCores(plan.generators, command, commandArgs) : [command, commandArgs];
const { cluster, children, dirs } = await benchCluster(['max_connections = 400']);
const instancePids = () => children.map((child) => child.pid).filter((pid): pid is number => pid !== undefined);
if (plan) pinPostgres(join(new URL(cluster.url).searchParams.get('host')!, 'data'), plan.postgres);
const db = new pg.Client({ connectionString: cluster.url });
await db.connect();

/** An instance of the compiled server on the database; its URL once it listens. */
async function startInstance(): Promise<{ child: ChildProcess; url: string }> {
  const instance = await startCompiledServer({ DATABASE_URL: cluster.url });
  if (plan) pin(instance.child.pid!, [plan.instances[children.length]!]);
  children.push(instance.child);
  return instance;
}

/** The generators, each with its share of terminals and connections, at once: requests answered 2xx a second. */
async function load(urls: string[], kind: 'write' | 'read', terminals: Array<{ serial: string; secret: string }>) {
  const runs = Array.from({ length: generators }, (_, id) => {
    const job = {
      id,
      urls,
      kind,
      merchantId: world.merchantId,
      token: world.token,
      seconds,
      connections: Math.max(1, Math.floor(connections / generators) + (id < connections % generators ? 1 : 0)),
      terminals: terminals.filter((_, t) => t % generators === id),
    };
    return new Promise<{ ok: number; other: number; cpuMs: number }>((resolve, reject) =>
      execFile(
        ...generatorCommand(process.execPath, [here('./scale-load.js'), JSON.stringify(job)]),
        { maxBuffer: 1 << 20 },
        (error, stdout, stderr) => {
          if (stderr) process.stderr.write(stderr);
          return error ? reject(error) : resolve(JSON.parse(stdout.trim().split('\n').at(-1)!));
        },
      ),
    );
  });
  // PostgreSQL's wait events, sampled every 100 ms while the load runs.
  const waits = new Map<string, number>();
  let samples = 0;
  const sampler = setInterval(() => {
    db.query<{ wait: string; n: string }>(
      "SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU') AS wait, count(*) AS n FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid() AND backend_type = 'client backend' GROUP BY 1",
    ).then(
      ({ rows }) => {
        samples += 1;
        for (const row of rows) waits.set(row.wait, (waits.get(row.wait) ?? 0) + Number(row.n));
      },
      () => undefined,
    );
  }, 100);
  const results = await Promise.all(runs);
  clearInterval(sampler);
  const total = [...waits.values()].reduce((a, b) => a + b, 0) || 1;
  const top = [...waits.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 2)
    .map(([wait, n]) => `${wait} ${Math.round((100 * n) / total)} %`)
    .join(', ');
  const ok = results.reduce((sum, r) => sum + r.ok, 0);
  const other = results.reduce((sum, r) => sum + r.other, 0);
  const generatorCores = results.reduce((sum, r) => sum + r.cpuMs, 0) / 1000 / seconds;
  return {
    rps: ok / seconds,
    ok,
    other,
    top: samples ? top : 'no samples',
    active: total / (samples || 1),
    generatorCores,
  };
}

/** `work`, with what the machine and PostgreSQL did meanwhile: the CPUs' busy share and the WAL written. */
async function observed<T>(
  work: () => Promise<T>,
): Promise<T & { cpuBusy: number; walBytes: number; cores: { instances: number; postgres: number } }> {
  const lsn = async () => (await db.query<{ lsn: string }>('SELECT pg_current_wal_lsn() AS lsn')).rows[0]!.lsn;
  const [cpuBefore, partsBefore, lsnBefore] = [await cpuTimes(), await cpuByPart(instancePids()), await lsn()];
  const result = await work();
  const [cpuAfter, partsAfter, lsnAfter] = [await cpuTimes(), await cpuByPart(instancePids()), await lsn()];
  const cores = {
    instances: (partsAfter.instances - partsBefore.instances) / 1000 / seconds,
    postgres: (partsAfter.postgres - partsBefore.postgres) / 1000 / seconds,
  };
  const walBytes = Number(
    (await db.query<{ bytes: string }>('SELECT pg_wal_lsn_diff($2, $1) AS bytes', [lsnBefore, lsnAfter])).rows[0]!
      .bytes,
  );
  const cpuBusy = (cpuAfter.busy - cpuBefore.busy) / (cpuAfter.total - cpuBefore.total || 1);
  return { ...result, cpuBusy, walBytes, cores };
}

const mbPerSecond = (bytes: number) => (bytes / seconds / 1e6).toFixed(1);
const percent = (share: number) => `${Math.round(100 * share)} %`;

/** pgbench's durable INSERT of the same body, its client on the generators' cores when pinned. */
const pgbenchCeiling = () =>
  pgbenchInsertCeiling({ db, url: cluster.url, bin: bin!, seconds, cores, dirs, command: generatorCommand });

// The terminals, provisioned once through the first instance.
const first = await startInstance();
const { world, terminals } = await provisionTerminals(first.url, 'SCALE', terminalCount);
const instances = [first];
const rows: string[] = [];
let acknowledged = 0;
let oneWrite = 0;
let oneRead = 0;
let lastWrite = 0;
let lastPostgresUs = 0;
/** CPU µs a request, from cores busy over the run. */
const perWriteUs = (coresBusy: number, requests: number) => ((coresBusy * seconds * 1e6) / (requests || 1)).toFixed(0);
for (const count of counts) {
  while (instances.length < count) instances.push(await startInstance());
  const urls = instances.slice(0, count).map((instance) => instance.url);
  process.stderr.write(`${count} instance(s): writes…\n`);
  const write = await observed(() => load(urls, 'write', terminals));
  acknowledged += write.ok;
  process.stderr.write(`${count} instance(s): reads…\n`);
  const read = await load(urls, 'read', terminals);
  if (count === counts[0]) [oneWrite, oneRead] = [write.rps, read.rps];
  lastWrite = write.rps;
  lastPostgresUs = Number(perWriteUs(write.cores.postgres, write.ok));
  rows.push(
    `| ${count} | ${Math.round(write.rps).toLocaleString('en')} | ${(write.rps / oneWrite).toFixed(2)} | ${perWriteUs(write.cores.postgres, write.ok)} / ${perWriteUs(write.cores.instances, write.ok)} | ${Math.round(read.rps).toLocaleString('en')} | ${(read.rps / oneRead).toFixed(2)} | ${write.top} | ${write.active.toFixed(1)} | ${mbPerSecond(write.walBytes)} (${Math.round(write.walBytes / (write.ok || 1)).toLocaleString('en')}) | ${percent(write.cpuBusy)}: ${write.cores.instances.toFixed(1)} / ${write.generatorCores.toFixed(1)} / ${write.cores.postgres.toFixed(1)} | ${write.other + read.other} |`,
  );
}
process.stderr.write('pgbench ceiling…\n');
const pgbench = await observed(pgbenchCeiling);
const ceiling = pgbench.tps;
const stored = Number(
  (await db.query<{ n: string }>("SELECT count(*) AS n FROM settlements WHERE data->>'terminal' LIKE 'SCALE-%'"))
    .rows[0]!.n,
);
process.stdout
  .write(`## bench:scale (${cores} CPUs${plan ? `, pinned: PostgreSQL on ${cpuList(plan.postgres)}, an instance a core on ${cpuList(plan.instances)}, generators and pgbench's client on ${cpuList(plan.generators)}${plan.shared ? ' (shared: too few cores, for the shape only)' : ''}` : ', unpinned'}, ${terminalCount} terminals, ${connections} connections from ${generators} generator processes, ${seconds} s a run)

| instances | signed settlement POST req/s | × the first | CPU µs a write: PostgreSQL / instances | latest-settlement read req/s | × the first | PostgreSQL's top waits while writing | backends active (mean) | WAL MB/s (bytes a write) | CPUs busy: cores of instances / generators / PostgreSQL | other answers |
|---|---|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

pgbench, one durable INSERT of the same body a transaction (32 clients): **${Math.round(ceiling).toLocaleString('en')} tps**, PostgreSQL CPU ${perWriteUs(pgbench.cores.postgres, ceiling * seconds)} µs a transaction (a signed write at ${counts.at(-1)} instance(s) ÷ it: **${(lastPostgresUs / Number(perWriteUs(pgbench.cores.postgres, ceiling * seconds))).toFixed(2)}**), WAL ${mbPerSecond(pgbench.walBytes)} MB/s (${Math.round(pgbench.walBytes / (ceiling * seconds || 1))} bytes a transaction), CPUs busy ${percent(pgbench.cpuBusy)}; signed writes at ${counts.at(-1)} instance(s) ÷ pgbench: **${(lastWrite / ceiling).toFixed(2)}**.
Acknowledged writes: ${acknowledged.toLocaleString('en')}; in the database afterwards: ${stored.toLocaleString('en')}; missing: **${Math.max(0, acknowledged - stored)}**.
`);
await db.end();
process.exit(0);
