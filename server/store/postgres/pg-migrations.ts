import pg from 'pg';
import { alterTableSql, ident, createTableSql, tableLayout, type TableLayout } from './pg-tables.js';
import { decodeKey } from './pg-text.js';
import type { Queryable } from './pg-statements.js';

// The PostgreSQL store's schema: the migrations every instance runs at
// start-up, once whatever the number starting together, and the catalog's
// view of the tables, which tells the store what needs no DDL.

type Migration = { version: number; sql: string } | { version: number; run: (client: pg.PoolClient) => Promise<void> };

const MIGRATIONS: Migration[] = [
  {
    version: 1,
    sql: `CREATE TABLE records (
            collection text NOT NULL,
            id text NOT NULL,
            data jsonb NOT NULL,
            PRIMARY KEY (collection, id)
          );
          CREATE INDEX records_data ON records USING gin (data jsonb_path_ops);`,
  },
  {
    version: 2,
    // Leases of records to instances (the webhook outbox), and bus messages too large for NOTIFY.
    sql: `CREATE TABLE leases (
            collection text NOT NULL,
            id text NOT NULL,
            owner text NOT NULL,
            expires_at timestamptz NOT NULL,
            PRIMARY KEY (collection, id)
          );
          CREATE TABLE bus_spill (
            id text PRIMARY KEY,
            payload text NOT NULL,
            created_at timestamptz NOT NULL DEFAULT now()
          );`,
  },
  {
    version: 3,
    // Every list is served by an expression index made from the declarations; the
    // GIN index over every document cost more CPU per write than all of them together.
    sql: 'DROP INDEX IF EXISTS records_data;',
  },
  {
    version: 4,
    // A table per collection (pg-tables.ts): each collection's records move out of the one
    // table, as they are; the typed columns and indexes follow from the declarations.
    run: moveToTables,
  },
];

/** Migration 4: every collection of `records` into a table of its own, then `records` dropped. */
async function moveToTables(client: pg.PoolClient): Promise<void> {
  const { rows } = await client.query<{ collection: string }>('SELECT DISTINCT collection FROM records');
  for (const { collection } of rows) {
    const layout = tableLayout(decodeKey(collection));
    await client.query(createTableSql(layout));
    await client.query(
      `INSERT INTO ${ident(layout.table)} (id, data) SELECT id, data FROM records WHERE collection = $1`,
      [collection],
    );
  }
  await client.query('DROP TABLE records');
}

/** Runs the migrations not yet applied, once, whatever the number of instances starting together. */
export async function migrate(pool: pg.Pool): Promise<number[]> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query("SELECT pg_advisory_xact_lock(hashtext('svc-pos-sim migrations'))");
    await client.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations');
    const applied = new Set(rows.map((row) => row.version));
    const ran: number[] = [];
    for (const migration of MIGRATIONS) {
      if (applied.has(migration.version)) continue;
      if ('sql' in migration) await client.query(migration.sql);
      else await migration.run(client);
      await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [migration.version]);
      ran.push(migration.version);
    }
    await client.query('COMMIT');
    return ran;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** The tables of the current schema and their columns' types, as the catalog has them. */
export async function readSchema(db: Queryable): Promise<Map<string, Map<string, string>>> {
  const { rows } = await db.query<{ table_name: string; column_name: string; data_type: string }>(
    'SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position',
  );
  const tables = new Map<string, Map<string, string>>();
  for (const row of rows) {
    let columns = tables.get(row.table_name);
    if (!columns) tables.set(row.table_name, (columns = new Map()));
    columns.set(row.column_name, row.data_type);
  }
  return tables;
}

/**
 * Creates a collection's table, or brings an existing one to its layout, on
 * a connection of its own (outside the pool: a transaction holding a pooled
 * connection may be what asks), one instance at a time.
 */
export async function layOutTable(
  connectionString: string,
  layout: TableLayout,
  onConnectionError: (error: Error) => void,
): Promise<void> {
  const client = new pg.Client({ connectionString });
  client.on('error', onConnectionError);
  try {
    await client.connect();
    // One instance at a time, so two never create the same table or column at once.
    await client.query("SELECT pg_advisory_lock(hashtext('svc-pos-sim tables'))");
    await client.query(createTableSql(layout));
    const columns = (await readSchema(client)).get(layout.table) ?? new Map<string, string>();
    for (const statement of alterTableSql(layout, columns)) await client.query(statement);
  } finally {
    await client.end().catch(() => undefined);
  }
}
