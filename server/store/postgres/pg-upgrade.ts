import type pg from 'pg';
import { readSchema } from './pg-migrations.js';
import { dropLeftoversSql, isCollectionTable, leftoverColumns } from './pg-tables.js';

// The end of a rolling upgrade: what tables made by an older version keep
// for that version's instances (a generated column per indexed field,
// computed again on every write), found, reported and dropped once none of
// those instances runs. Dropping a column drops that version's indexes on
// it; this version's indexes are on expressions of `data` (pg-tables.ts).

/** A collection table and the columns it keeps for an older version. */
export interface Leftovers {
  table: string;
  columns: string[];
}

/** Every collection table that keeps columns of an older version, in the schema as the catalog has it. */
export function leftoversIn(schema: ReadonlyMap<string, ReadonlyMap<string, string>>): Leftovers[] {
  return [...schema]
    .filter(([table]) => isCollectionTable(table))
    .map(([table, columns]) => ({ table, columns: leftoverColumns(columns) }))
    .filter((found) => found.columns.length > 0)
    .sort((a, b) => (a.table < b.table ? -1 : 1));
}

/** What start-up tells the operator about them: one line, or nothing. */
export function leftoversNotice(found: readonly Leftovers[]): string | undefined {
  if (found.length === 0) return undefined;
  const tables = found.map((each) => `${each.table} (${each.columns.join(', ')})`).join('; ');
  return (
    `tables keep columns of an earlier version, computed again on every write: ${tables}. ` +
    'Once no instance of an earlier version runs, `svc-store finish-upgrade` drops them.'
  );
}

/** Drops them, table by table, one instance at a time (the same lock as the tables' layout). */
export async function dropLeftovers(client: pg.Client | pg.PoolClient): Promise<Leftovers[]> {
  await client.query("SELECT pg_advisory_lock(hashtext('svc-pos-sim tables'))");
  try {
    const found = leftoversIn(await readSchema(client));
    for (const { table, columns } of found) await client.query(dropLeftoversSql(table, columns)!);
    return found;
  } finally {
    await client.query("SELECT pg_advisory_unlock(hashtext('svc-pos-sim tables'))").catch(() => undefined);
  }
}
