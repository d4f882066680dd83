// npm run bench:wal [-- --writes 3000 --terminals 16]
// What one signed settlement POST puts into PostgreSQL's WAL, and where: on
// a throwaway cluster (fsync on, defaults otherwise), the server in process
// on the PostgreSQL store, after a CHECKPOINT, N signed writes spread over
// the terminals; then the WAL bytes and records per write, pg_waldump's
// statistics by record type, and the bytes by relation (table or index).
// The reference, in the same run: a minimal durable INSERT of the same JSON
// body into a table with one index.
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { PosClient } from '../../contracts/clients/pos-client.js';
import { createApp } from '../../server/app.js';
import { systemClock } from '../../server/clock.js';
import { loadConfig } from '../../server/config.js';
import { PgStore } from '../../server/store/postgres/pg-store.js';
import { postgresBin, startThrowawayPostgres } from '../../server/store/postgres/pg-testing.js';
import { provisionTerminals } from './pos-world.js';

const { values: args } = parseArgs({
  options: {
    writes: { type: 'string', default: '3000' },
    terminals: { type: 'string', default: '16' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (args.help) {
  process.stdout.write(`usage: npm run bench:wal -- [--writes N] [--terminals N]
WAL bytes and records per signed settlement POST on PostgreSQL, by record
type and by relation, beside a minimal durable INSERT of the same body.
Needs PostgreSQL's server binaries (pg_waldump among them).
`);
  process.exit(0);
}
const writes = Number(args.writes);
const terminalCount = Number(args.terminals);
if (!(writes >= 100) || !(terminalCount >= 1)) {
  process.stderr.write('bench:wal: --writes at least 100, --terminals at least 1\n');
  process.exit(2);
}
const bin = postgresBin();
if (!bin) {
  process.stderr.write("bench:wal: no PostgreSQL server binaries: install Debian's postgresql package\n");
  process.exit(2);
}

const cluster = startThrowawayPostgres();
const admin = new pg.Client({ connectionString: cluster.url });
await admin.connect();
const dataDir = (await admin.query<{ data_directory: string }>('SHOW data_directory')).rows[0]!.data_directory;
const lsn = async () => (await admin.query<{ lsn: string }>('SELECT pg_current_wal_lsn() AS lsn')).rows[0]!.lsn;
const between = async (from: string, to: string) =>
  Number((await admin.query<{ bytes: string }>('SELECT pg_wal_lsn_diff($2, $1) AS bytes', [from, to])).rows[0]!.bytes);

/** pg_waldump over [from, to): its statistics by record type, and bytes and records by relation. */
async function dump(from: string, to: string) {
  const waldump = join(bin!, 'pg_waldump');
  const wal = join(dataDir, 'pg_wal');
  const stats = execFileSync(waldump, ['--stats=record', '-p', wal, '-s', from, '-e', to], { encoding: 'utf8' });
  const records = execFileSync(waldump, ['-p', wal, '-s', from, '-e', to], {
    encoding: 'utf8',
    maxBuffer: 1024 * 1024 * 1024,
  });
  // An index is named by a hash of its declaration: shown with the fields it reads (then the id), which say what it serves.
  const fieldsOf = (definition: string) => {
    const fields = [...new Set([...definition.matchAll(/data -> '([^']+)'/g)].map((match) => match[1]!))];
    return fields.length > 0 ? [...fields, 'id'].join(', ') : (/\((.*)\)\s*$/.exec(definition)?.[1] ?? '');
  };
  const columns = new Map(
    (await admin.query<{ indexname: string; indexdef: string }>('SELECT indexname, indexdef FROM pg_indexes')).rows.map(
      (row) => [row.indexname, fieldsOf(row.indexdef)],
    ),
  );
  const names = new Map(
    (
      await admin.query<{ relfilenode: string; relname: string }>('SELECT relfilenode::text, relname FROM pg_class')
    ).rows.map((row) => [
      row.relfilenode,
      columns.has(row.relname) ? `${row.relname} (${columns.get(row.relname)})` : row.relname,
    ]),
  );
  const byRelation = new Map<string, { records: number; bytes: number; fpi: number }>();
  for (const line of records.split('\n')) {
    const total = /len \(rec\/tot\):\s*(\d+)\/\s*(\d+)/.exec(line);
    if (!total) continue;
    const relation = /rel \d+\/\d+\/(\d+)/.exec(line)?.[1];
    const name = relation
      ? (names.get(relation) ?? `relfilenode ${relation}`)
      : `(${/desc: (\w+)/.exec(line)?.[1] ?? 'other'})`;
    const entry = byRelation.get(name) ?? { records: 0, bytes: 0, fpi: 0 };
    entry.records += 1;
    entry.bytes += Number(total[2]);
    if (/FPW|fpw|full page/.test(line)) entry.fpi += 1;
    byRelation.set(name, entry);
  }
  return { stats, byRelation };
}

// The server on the PostgreSQL store, and its terminals.
const store = await PgStore.open({ connectionString: cluster.url });
const app = createApp({
  store,
  clock: systemClock,
  config: { ...loadConfig({}), logLevel: 'silent', scryptCost: 1024 },
});
const http = createServer(app.callback());
await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
const baseUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
const { terminals } = await provisionTerminals(baseUrl, 'WAL', terminalCount);
const clients = terminals.map(({ serial, secret }) => new PosClient({ baseUrl, serialNumber: serial, secret }));
const settlement = (terminal: string, n: number) => ({
  batchNumber: `B${String(n).padStart(8, '0')}`,
  transactionCount: 12,
  closedAt: new Date(Date.UTC(2026, 10, 1) + n * 60_000).toISOString(),
  currencyReference: 'USD',
  terminal,
  debitBatch: `D${n}`,
});
let sequence = 0;
/** `count` signed writes, one in flight a terminal, spread over the terminals. */
async function signedWrites(count: number): Promise<void> {
  let left = count;
  await Promise.all(
    clients.map(async (client, i) => {
      while (left > 0) {
        left -= 1;
        const answer = await client.notifySettlement(settlement(terminals[i]!.serial, (sequence += 1)));
        if (answer.status !== 200) throw new Error(`a signed write answered ${answer.status}`);
      }
    }),
  );
}

await signedWrites(200); // warm: the tables and their first pages exist
await admin.query('CHECKPOINT');
const start = await lsn();
await signedWrites(writes);
const end = await lsn();
const signedBytes = await between(start, end);
const signed = await dump(start, end);

// The reference: one durable INSERT of the same body, one index.
await admin.query('CREATE TABLE wal_reference (id bigserial PRIMARY KEY, data jsonb NOT NULL)');
const body = JSON.stringify(settlement('WAL-0', 0));
const reference = new pg.Client({ connectionString: cluster.url });
await reference.connect();
for (let i = 0; i < 200; i += 1) await reference.query('INSERT INTO wal_reference (data) VALUES ($1)', [body]);
await admin.query('CHECKPOINT');
const refStart = await lsn();
for (let i = 0; i < writes; i += 1) await reference.query('INSERT INTO wal_reference (data) VALUES ($1)', [body]);
const refEnd = await lsn();
const referenceBytes = await between(refStart, refEnd);
const referenceDump = await dump(refStart, refEnd);
await reference.end();

const totalRecords = (byRelation: Map<string, { records: number }>) =>
  [...byRelation.values()].reduce((sum, entry) => sum + entry.records, 0);
const perWrite = (n: number) => (n / writes).toFixed(1);
const rows = [...signed.byRelation.entries()].sort((a, b) => b[1].bytes - a[1].bytes);
process.stdout.write(`## WAL per write (${writes} writes over ${terminalCount} terminals, after a CHECKPOINT)

| | WAL bytes a write | WAL records a write |
|---|---|---|
| signed settlement POST | ${perWrite(signedBytes)} | ${perWrite(totalRecords(signed.byRelation))} |
| minimal durable INSERT of the same body (reference) | ${perWrite(referenceBytes)} | ${perWrite(totalRecords(referenceDump.byRelation))} |
| ratio | ${(signedBytes / referenceBytes).toFixed(2)} | |

### By relation (signed writes)

| relation | records a write | bytes a write | records with a full-page image |
|---|---|---|---|
${rows.map(([name, e]) => `| ${name} | ${perWrite(e.records)} | ${perWrite(e.bytes)} | ${e.fpi} |`).join('\n')}

### pg_waldump --stats=record (signed writes)

\`\`\`
${signed.stats.trim()}
\`\`\`
`);
http.close();
app.jobs.relay.close();
await store.close();
await admin.end();
cluster.stop();
process.exit(0);
