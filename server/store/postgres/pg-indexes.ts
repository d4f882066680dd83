import type pg from 'pg';
import { ident, type TableLayout } from './pg-tables.js';

// The indexes every list of the PostgreSQL store is served by, made from
// the declarations (index-declarations.ts) as the tables' layouts give them.

/**
 * Makes the declared indexes of `layouts` exist, and nothing else of ours:
 * in the background and concurrently (writes go on), by one instance at a
 * time; an index whose concurrent build was cut off is made again, one of a
 * declaration that changed or went is dropped.
 */
export async function ensureDeclaredIndexes(pool: pg.Pool, layouts: readonly TableLayout[]): Promise<void> {
  const client = await pool.connect();
  // A connection the server drops while an index is being made emits 'error': handled, and the client thrown away.
  let lost: Error | undefined;
  const onError = (error: Error) => (lost = error);
  client.on('error', onError);
  try {
    // Not waiting for the lock: an instance that holds it is creating the same indexes.
    const { rows } = await client.query<{ locked: boolean }>(
      "SELECT pg_try_advisory_lock(hashtext('svc-pos-sim declared indexes')) AS locked",
    );
    if (!rows[0]?.locked) return;
    try {
      const ours = (
        await client.query<{ table: string; name: string; valid: boolean }>(
          `SELECT t.relname AS table, c.relname AS name, i.indisvalid AS valid
           FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid
          WHERE t.relnamespace = current_schema()::regnamespace AND c.relname LIKE '%\\_ix\\_%'`,
        )
      ).rows;
      for (const layout of layouts) {
        const existing = ours.filter((index) => index.table === layout.table);
        // An index whose concurrent build was cut off is left invalid: made again.
        for (const index of existing.filter((each) => !each.valid))
          await client.query(`DROP INDEX CONCURRENTLY IF EXISTS ${ident(index.name)}`);
        const valid = new Set(existing.filter((each) => each.valid).map((each) => each.name));
        for (const index of layout.indexes) if (!valid.has(index.name)) await client.query(index.sql);
        // An index of a declaration that changed or went: not needed any more.
        for (const name of valid)
          if (!layout.indexes.some((index) => index.name === name))
            await client.query(`DROP INDEX CONCURRENTLY IF EXISTS ${ident(name)}`);
      }
    } finally {
      await client.query("SELECT pg_advisory_unlock(hashtext('svc-pos-sim declared indexes'))").catch(() => undefined);
    }
  } finally {
    // The listener stays: a dropped connection can still report after its last query failed. (This
    // runs once per start; a client of the pool that keeps one more listener costs nothing.)
    client.release(lost);
  }
}
