import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import t from 'tap';
import { createLogger } from '../../log.js';
import { runQuery } from '../query.js';
import type { IndexDeclaration, Query, StoredRecord } from '../store.js';
import { PgStore } from './pg-store.js';
import { fieldExpression, ident, selectSql, tableLayout } from './pg-tables.js';
import { postgresSkip, startPostgresWithAdmin } from './pg-testing.js';

// A rolling upgrade from the version whose tables had a generated column
// per indexed field: this version reads and indexes the fields through
// expressions of `data`, beside an older instance that still reads its
// columns, until `svc-store finish-upgrade` drops them.

const cli = fileURLToPath(new URL('../../../scripts/store/cli.ts', import.meta.url));
const run = promisify(execFile);

const declarations: IndexDeclaration[] = [
  { equals: ['terminal'], order: { field: 'closedAt', type: 'time' } },
  { equals: ['terminal'], order: { field: 'transactionCount', type: 'number' } },
];

/** The table as the older version made it: a generated column per field, indexed by column. */
function olderTableSql(): string[] {
  const column = (field: string, type: 'text' | 'number') =>
    `${ident(field)} ${type === 'number' ? 'double precision' : 'text COLLATE "C"'} GENERATED ALWAYS AS ${fieldExpression(field, type)} STORED`;
  return [
    `CREATE TABLE settlements (id text COLLATE "C" PRIMARY KEY, data jsonb NOT NULL, claim_id text COLLATE "C",
       claim_live_until double precision, ${column('closedAt', 'text')}, ${column('transactionCount', 'number')},
       ${column('terminal', 'text')})`,
    'CREATE INDEX settlements_ix_000000000001 ON settlements (terminal, "closedAt" ASC NULLS FIRST, id)',
    'CREATE INDEX settlements_ix_000000000002 ON settlements (terminal, "transactionCount" ASC NULLS FIRST, id)',
  ];
}

const settlement = (n: number): StoredRecord => ({
  terminal: `T${n % 3}`,
  closedAt: new Date(Date.UTC(2026, 0, 1) + n * 60_000).toISOString(),
  transactionCount: (n * 7) % 11,
});

async function columnsOf(admin: pg.Client): Promise<string[]> {
  const { rows } = await admin.query<{ column_name: string }>(
    "SELECT column_name FROM information_schema.columns WHERE table_name = 'settlements' ORDER BY ordinal_position",
  );
  return rows.map((row) => row.column_name);
}

t.test(
  'tables of the older layout: read through the new indexes beside an older instance, then finished',
  { skip: postgresSkip() },
  async (t) => {
    const { connectionString, admin } = await startPostgresWithAdmin(t);
    // The older version's tables, and rows it wrote (id and data alone).
    await PgStore.open({ connectionString }).then((store) => store.close()); // its migrations
    for (const statement of olderTableSql()) await admin.query(statement);
    const mirror: [string, StoredRecord][] = [];
    for (let n = 0; n < 60; n += 1) {
      mirror.push([`S${n}`, settlement(n)]);
      await admin.query('INSERT INTO settlements (id, data) VALUES ($1, $2)', [`S${n}`, settlement(n)]);
    }

    const lines: string[] = [];
    const store = await PgStore.open({ connectionString, log: createLogger('warn', (line) => lines.push(line)) });
    store.declareIndexes({ settlements: declarations });
    await store.indexesReady();
    t.match(
      lines.join(''),
      /settlements \(closedAt, transactionCount, terminal\)[^"]*svc-store finish-upgrade/,
      'start-up names the columns kept for the older version, and how to drop them',
    );
    const query: Query = { where: { terminal: 'T1' }, orderBy: { field: 'closedAt', direction: 'desc' }, limit: 5 };
    t.same(await store.list('settlements', query), runQuery(mirror, query), "the older version's rows, listed");

    // This version's write is seen by the older instance's query on its column, and by this version's list.
    await store.insertIfAbsent('settlements', 'S60', settlement(60));
    mirror.push(['S60', settlement(60)]);
    const older = await admin.query<{ n: string }>('SELECT count(*) AS n FROM settlements WHERE terminal = $1', ['T0']);
    t.equal(
      Number(older.rows[0]!.n),
      mirror.filter(([, r]) => r.terminal === 'T0').length,
      'the older instance sees it',
    );
    t.same(
      await store.list('settlements', { ...query, where: { terminal: 'T0' } }),
      runQuery(mirror, { ...query, where: { terminal: 'T0' } }),
    );

    // The list goes through this version's index on the expressions.
    const client = await (store as unknown as { pool: pg.Pool }).pool.connect();
    try {
      await client.query('SET enable_seqscan = off');
      const statement = selectSql(tableLayout('settlements', declarations), query);
      const plan = (await client.query(`EXPLAIN ${statement.text}`, statement.values)).rows
        .map((row: Record<string, string>) => Object.values(row)[0])
        .join('\n');
      t.match(plan, /Index Scan Backward using settlements_ix_/, plan);
      t.notMatch(plan, /settlements_ix_00000000000/, "not the older version's index on its column");
      t.notMatch(plan, /Sort/, plan);
    } finally {
      client.release();
    }

    const env = { ...process.env, DATABASE_URL: connectionString };
    const dry = await run(process.execPath, ['--import', 'tsx', cli, 'finish-upgrade', '--dry-run'], { env });
    t.match(dry.stdout, /settlements: would drop 3 column\(s\): closedAt, transactionCount, terminal/);
    t.equal((await columnsOf(admin)).length, 7, 'a dry run drops nothing');

    const done = await run(process.execPath, ['--import', 'tsx', cli, 'finish-upgrade', '--json'], { env });
    t.same(JSON.parse(done.stdout), {
      dropped: true,
      tables: [{ table: 'settlements', columns: ['closedAt', 'transactionCount', 'terminal'] }],
    });
    t.same(await columnsOf(admin), ['id', 'data', 'claim_id', 'claim_live_until'], 'the columns are gone');
    t.same(await store.list('settlements', query), runQuery(mirror, query), 'and every list answers as before');
    t.equal((await store.get('settlements', 'S7'))?.terminal, 'T1', 'the records whole');
    await store.close();

    lines.length = 0;
    const again = await PgStore.open({ connectionString, log: createLogger('warn', (line) => lines.push(line)) });
    await again.close();
    t.notMatch(lines.join(''), /finish-upgrade/, 'no notice once finished');
    const twice = await run(process.execPath, ['--import', 'tsx', cli, 'finish-upgrade'], { env });
    t.match(twice.stdout, /nothing to drop/);

    const noUrl = await run(process.execPath, ['--import', 'tsx', cli, 'finish-upgrade'], {
      env: { ...process.env, DATABASE_URL: '' },
    }).catch((error: { code: number; stderr: string }) => error);
    t.equal((noUrl as { code: number }).code, 2);
    t.match((noUrl as { stderr: string }).stderr, /set DATABASE_URL/);
  },
);
