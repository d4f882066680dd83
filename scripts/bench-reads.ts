// npm run bench:reads [-- --small 10000 --large 1000000 --pg-large 200000 --duration 4 --no-postgres]
// The reads that collapsed as data grew (issue 17), through the HTTP API of
// the compiled server, at a small and a large number of records, per store,
// in one run: the ratio large / small is the figure (goal at least 0.7).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { orderKey } from '../server/orders/order.js';
import { settlementKey } from '../server/settlements/settlement.js';
import { indexDeclarations } from '../server/index-declarations.js';
import { LowdbStore } from '../server/store/lowdb-store.js';
import { PgStore } from '../server/store/pg-store.js';
import { createTableSql, ident, selectSql, tableLayout } from '../server/store/pg-tables.js';
import { postgresBin, startThrowawayPostgres } from '../server/store/pg-testing.js';
import { encodeJson, encodeKey } from '../server/store/pg-text.js';
import type { Query, StoredRecord } from '../server/store/store.js';
import { traceEntry } from '../server/trace/trace.js';

const { values: args } = parseArgs({
  options: {
    small: { type: 'string', default: '10000' },
    large: { type: 'string', default: '1000000' },
    'pg-large': { type: 'string', default: '200000' },
    duration: { type: 'string', default: '4' },
    connections: { type: 'string', default: '16' },
    'no-postgres': { type: 'boolean', default: false },
    explain: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h' },
  },
});
if (args.help) {
  process.stdout.write(`usage: npm run bench:reads -- [--small N] [--large N] [--pg-large N] [--duration S] [--connections N] [--no-postgres] [--explain]

Seeds a data directory (and, where PostgreSQL's binaries are installed, a
throwaway cluster) with N records of other merchants, terminals and
accounts beside one account's own, starts the compiled server on it, and
measures with autocannon, for --duration seconds each: the latest
settlement of a terminal, a merchant's first page of orders, settlements
sorted by debitBatch, the console trace and the console progress. Each at
--small and at --large records (--pg-large on PostgreSQL); the figure is
large / small. Also the start-up time and the first read of each (which
builds the indexes it uses). --explain prints PostgreSQL's plans of two reads.
`);
  process.exit(0);
}
const duration = Number(args.duration);
const connections = Number(args.connections);
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

function startServer(env: Record<string, string>): Promise<{ child: ChildProcess; url: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--max-old-space-size=8192', here('../server/main.js')], { env: { ...process.env, PORT: '0', LOG_LEVEL: 'error', ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve({ child, url: match[1]!, ms: performance.now() - started });
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

interface World {
  token: string;
  consoleToken: string;
  accountId: string;
  merchantId: string;
  serial: string;
}

async function register(url: string): Promise<World> {
  const post = async (path: string, body: unknown, token?: string) => {
    const response = await fetch(new URL(path, url), { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });
    return (await response.json()) as any;
  };
  const account = await post('/console/register', { email: 'reads@example.com', password: 'bench password' });
  await post(`/api/v1/merchants/${account.merchant_id}/pos-terminals`, { serialNumber: 'READS-1' }, account.key.token);
  return { token: account.key.token, consoleToken: account.console_token, accountId: account.account_id, merchantId: account.merchant_id, serial: 'READS-1' };
}

/** The records: the account's own (2,000 of each kind), and `total` others spread over 500 merchants. */
function* records(world: World, total: number): Generator<[string, string, StoredRecord]> {
  const at = (i: number) => new Date(Date.parse('2026-01-01T00:00:00.000Z') + i * 1000).toISOString();
  const own = 2000;
  for (let i = 0; i < own + total; i += 1) {
    const mine = i < own;
    const merchant = mine ? world.merchantId : `mer_other${i % 500}`;
    const terminal = mine ? world.serial : `OTHER-${i % 500}`;
    const account = mine ? world.accountId : `acc_other${i % 500}`;
    const kind = mine ? i % 3 : i % 3;
    if (kind === 0 || mine) {
      const orderId = `o${i}`;
      yield ['orders', orderKey(merchant, orderId), { orderId, merchantId: merchant, terminal, amount: 100 + (i % 900), currency: 'USD', status: i % 4 ? 'PAID' : 'PENDING', createdAt: at(i), updatedAt: at(i), history: [], account_id: account }];
    }
    if (kind === 1 || mine) {
      const batchNumber = `B${String(i).padStart(7, '0')}`;
      yield ['settlements', settlementKey(terminal, batchNumber), { batchNumber, transactionCount: i % 90, closedAt: at(i), currencyReference: 'USD', terminal, debitBatch: `D${(i * 7919) % 1_000_003}`, merchantId: merchant, receivedAt: at(i) }];
    }
    if (kind === 2 || mine) {
      const entry = traceEntry(account, i % 2 ? 'webhook.attempt' : 'session.created', at(i), { session_id: `ses_${i % 1000}`, status: 200, result: 'succeeded' });
      yield ['trace', entry.id, entry];
    }
  }
}

async function seedLowdb(dir: string, world: World, total: number): Promise<void> {
  const store = await LowdbStore.open({ dir });
  let batch: Array<[string, string, StoredRecord]> = [];
  const flush = () => store.transact((tx) => {
    for (const [c, id, v] of batch) tx.put(c, id, v);
  });
  for (const record of records(world, total)) {
    batch.push(record);
    if (batch.length === 10_000) {
      await flush();
      batch = [];
    }
  }
  if (batch.length > 0) await flush();
  await store.snapshot();
  await store.close();
}

async function seedPostgres(url: string, world: World, total: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const tables = new Set<string>();
  let rows: string[][] = [];
  const flush = async () => {
    const byTable = new Map<string, string[][]>();
    for (const row of rows) {
      const layout = tableLayout(row[0]!, indexDeclarations[row[0]!]);
      if (!tables.has(layout.table)) {
        await client.query(createTableSql(layout));
        tables.add(layout.table);
      }
      byTable.set(layout.table, [...(byTable.get(layout.table) ?? []), row]);
    }
    for (const [table, some] of byTable) {
      await client.query(`INSERT INTO ${ident(table)} (id, data) SELECT i, d::jsonb FROM unnest($1::text[], $2::text[]) AS t(i, d) ON CONFLICT DO NOTHING`, [some.map((r) => r[1]), some.map((r) => r[2])]);
    }
    rows = [];
  };
  for (const [c, id, v] of records(world, total)) {
    rows.push([c, encodeKey(id), encodeJson(v)]);
    if (rows.length === 5000) await flush();
  }
  if (rows.length > 0) await flush();
  for (const table of tables) await client.query(`ANALYZE ${ident(table)}`);
  await client.end();
  // A database that has served for a while has its declared indexes: make them before measuring.
  const store = await PgStore.open({ connectionString: url });
  store.declareIndexes(indexDeclarations);
  await store.indexesReady();
  await store.close();
  if (args.explain) {
    const explainer = new pg.Client({ connectionString: url });
    await explainer.connect();
    const plans: Array<[string, Query]> = [
      ['orders', { where: { merchantId: world.merchantId }, orderBy: { field: 'createdAt', direction: 'desc' }, limit: 20, offset: 0 }],
      ['trace', { where: { account_id: world.accountId }, orderBy: { field: 'listed', direction: 'desc' }, limit: 100 }],
    ];
    for (const [collection, query] of plans) {
      const sql = selectSql(tableLayout(collection, indexDeclarations[collection]), query);
      const { rows } = await explainer.query(`EXPLAIN ANALYZE ${sql.text}`, sql.values);
      process.stderr.write(`${collection}:\n${rows.map((row: Record<string, string>) => `  ${Object.values(row)[0]}`).join('\n')}\n`);
    }
    await explainer.end();
  }
}

const READS: Array<{ name: string; path: (w: World) => string; console?: boolean }> = [
  { name: 'latest settlement of a terminal (sort=-closedAt&size=1)', path: (w) => `/api/v1/merchants/${w.merchantId}/pos-terminals/${w.serial}/settlements?sort=-closedAt&size=1` },
  { name: 'merchant\'s orders, first page (size=20)', path: (w) => `/api/v1/merchants/${w.merchantId}/transactions?size=20` },
  { name: 'settlements sorted by debitBatch (size=5)', path: (w) => `/api/v1/merchants/${w.merchantId}/pos-terminals/${w.serial}/settlements?sort=debitBatch&size=5` },
  { name: 'console trace (limit=100)', path: () => '/console/trace?limit=100', console: true },
  { name: 'console progress', path: () => '/console/progress', console: true },
];

async function measure(url: string, world: World): Promise<{ startMs: number; first: number[]; perSecond: number[] }> {
  const first: number[] = [];
  const perSecond: number[] = [];
  for (const read of READS) {
    const headers = { authorization: `Bearer ${read.console ? world.consoleToken : world.token}` };
    const started = performance.now();
    const response = await fetch(new URL(read.path(world), url), { headers });
    if (response.status !== 200) throw new Error(`${read.name}: ${response.status} ${await response.text()}`);
    first.push(performance.now() - started);
    const result = await autocannon({ url: new URL(read.path(world), url).toString(), headers, connections, duration });
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${read.name}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
    perSecond.push(result.requests.average);
  }
  return { startMs: 0, first, perSecond };
}

async function runStore(kind: 'embedded' | 'postgres', sizes: [number, number]): Promise<void> {
  const results: Array<{ size: number; startMs: number; first: number[]; perSecond: number[]; rss: number }> = [];
  for (const size of sizes) {
    const dir = await mkdtemp(join(tmpdir(), 'bench-reads-'));
    const cluster = kind === 'postgres' ? startThrowawayPostgres() : null;
    try {
      const env: Record<string, string> = cluster ? { DATABASE_URL: cluster.url } : { DATA_DIR: dir };
      const empty = await startServer(env);
      const world = await register(empty.url);
      await stopServer(empty.child);
      const seeding = performance.now();
      if (cluster) await seedPostgres(cluster.url, world, size);
      else await seedLowdb(dir, world, size);
      process.stderr.write(`${kind}: seeded ${size.toLocaleString('en')} records in ${((performance.now() - seeding) / 1000).toFixed(1)} s\n`);
      const server = await startServer(env);
      const measured = await measure(server.url, world);
      const rss = Number((await import('node:fs')).readFileSync(`/proc/${server.child.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)?.[1] ?? 0) * 1024;
      await stopServer(server.child);
      results.push({ size, startMs: server.ms, first: measured.first, perSecond: measured.perSecond, rss });
    } finally {
      cluster?.stop();
      await rm(dir, { recursive: true, force: true });
    }
  }
  const [small, large] = results as [(typeof results)[0], (typeof results)[0]];
  const lines = [
    `\n${kind} store: ${small.size.toLocaleString('en')} and ${large.size.toLocaleString('en')} other records (plus the account's own 6,000)`,
    `start-up: ${(small.startMs / 1000).toFixed(2)} s and ${(large.startMs / 1000).toFixed(2)} s; server RSS after the reads: ${(small.rss / 1e6).toFixed(0)} MB and ${(large.rss / 1e6).toFixed(0)} MB`,
    '',
    `| read | req/s at ${small.size.toLocaleString('en')} | req/s at ${large.size.toLocaleString('en')} | large / small (goal ≥ 0.7) | first read, small / large |`,
    '|---|---|---|---|---|',
    ...READS.map((read, i) => `| ${read.name} | ${small.perSecond[i]!.toFixed(0)} | ${large.perSecond[i]!.toFixed(0)} | ${(large.perSecond[i]! / small.perSecond[i]!).toFixed(2)} | ${small.first[i]!.toFixed(0)} ms / ${large.first[i]!.toFixed(0)} ms |`),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

await runStore('embedded', [Number(args.small), Number(args.large)]);
if (!args['no-postgres'] && postgresBin()) await runStore('postgres', [Number(args.small), Number(args['pg-large'])]);
