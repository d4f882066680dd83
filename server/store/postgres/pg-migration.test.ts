import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import t from 'tap';
import { indexDeclarations } from '../../index-declarations.js';
import { PgStore } from './pg-store.js';
import { tableName } from './pg-tables.js';
import { postgresSkip, startPostgresWithAdmin } from './pg-testing.js';
import { decodeKey } from './pg-text.js';

// The move from one table of JSON documents (schema version 3) to a table
// per collection (version 4), run on a database the previous version made:
// fixtures/postgres/v3-single-table.sql.gz is pg_dump --inserts of a
// database after the contract suite ran against the app at version 3.

const dump = gunzipSync(
  readFileSync(new URL('../../../fixtures/postgres/v3-single-table.sql.gz', import.meta.url)),
).toString('utf8');

/** The dump as plain SQL: psql's meta-commands (\restrict, \unrestrict) left out; every other line is a statement. */
function dumpSql(): string {
  return dump
    .split('\n')
    .filter((line) => !line.startsWith('\\'))
    .join('\n');
}

t.test(
  "migration 4 moves every record of a version-3 database into its collection's table, equal",
  { skip: postgresSkip() },
  async (t) => {
    const { connectionString, admin } = await startPostgresWithAdmin(t);
    await admin.query(dumpSql());
    await admin.query('SET search_path TO public');

    const before = (
      await admin.query<{ collection: string; id: string; data: unknown }>(
        'SELECT collection, id, data FROM records ORDER BY collection, id',
      )
    ).rows;
    t.ok(before.length > 900, `the fixture holds ${before.length} records`);
    const versions = (
      await admin.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version')
    ).rows.map((row) => row.version);
    t.same(versions, [1, 2, 3], 'made by version 3');

    const store = await PgStore.open({ connectionString });
    t.teardown(() => store.close());
    store.declareIndexes(indexDeclarations);
    await store.indexesReady();

    const tables = new Set(
      (
        await admin.query<{ table_name: string }>(
          "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'",
        )
      ).rows.map((row) => row.table_name),
    );
    t.notOk(tables.has('records'), 'the single table is gone');

    const collections = [...new Set(before.map((row) => row.collection))];
    for (const collection of collections) {
      const table = tableName(decodeKey(collection));
      t.ok(tables.has(table), `${collection} has its table`);
      const moved = (await admin.query<{ id: string; data: unknown }>(`SELECT id, data FROM "${table}" ORDER BY id`))
        .rows;
      const expected = before.filter((row) => row.collection === collection).map(({ id, data }) => ({ id, data }));
      t.equal(moved.length, expected.length, `${collection}: ${expected.length} records before and after`);
      t.same(moved, expected, `${collection}: every record equal`);
    }

    // Through the store, as the app reads them: by id, and by a declared list on the indexed fields.
    const settlement = before.find((row) => row.collection === 'settlements')!;
    t.same(await store.get('settlements', settlement.id), settlement.data, 'a settlement reads back by its key');
    const terminal = (settlement.data as { terminal: string }).terminal;
    const listed = await store.list('settlements', {
      where: { terminal },
      orderBy: { field: 'closedAt', direction: 'desc' },
      limit: 10,
    });
    t.same(
      listed.length,
      before.filter(
        (row) => row.collection === 'settlements' && (row.data as { terminal: string }).terminal === terminal,
      ).length,
      "a terminal's settlements listed through its index",
    );
    const columns = await admin.query<{ column_name: string }>(
      "SELECT column_name FROM information_schema.columns WHERE table_name = 'settlements' ORDER BY ordinal_position",
    );
    t.same(
      columns.rows.map((row) => row.column_name),
      ['id', 'data', 'claim_id', 'claim_live_until'],
      'the record whole, no column per field',
    );
    const asked = await admin.query<{ n: string }>(
      "SELECT count(*) AS n FROM settlements WHERE data->>'terminal' = $1",
      [terminal],
    );
    t.equal(
      Number(asked.rows[0]!.n),
      listed.length,
      "an operator asks SELECT … FROM settlements WHERE data->>'terminal' = …",
    );
    t.same(
      (await admin.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version')).rows.map(
        (row) => row.version,
      ),
      [1, 2, 3, 4],
      'and the database is at version 4',
    );
  },
);
