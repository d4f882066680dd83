import { createHash } from 'node:crypto';
import pg from 'pg';
import { deepFreeze } from '../frozen.js';
import { rethrowAsStoreFault } from './pg-faults.js';
import { selectSql, type TableLayout } from './pg-tables.js';
import { decodeJson, decodeKey } from './pg-text.js';
import { runQuery } from '../query.js';
import type { Query, StoredRecord } from '../store.js';

// How the PostgreSQL store sends statements and reads their rows: prepared
// by name, records frozen as the embedded store hands them out.

/**
 * A statement prepared once per connection, by a name derived from its text:
 * PostgreSQL parses it once and, after a few runs, keeps a generic plan,
 * instead of parsing and planning every time against a table with dozens of
 * partial indexes (planning was most of its CPU per request).
 */
export function prepared(text: string, values: unknown[]): pg.QueryConfig {
  let name = preparedNames.get(text);
  if (!name) preparedNames.set(text, (name = `s${createHash('sha1').update(text).digest('hex').slice(0, 20)}`));
  return { name, text, values };
}
const preparedNames = new Map<string, string>();

export type Queryable = Pick<pg.PoolClient, 'query'>;

/** The rows a list's statement returns, records frozen. */
export async function selectRows<R extends { data: StoredRecord }>(
  db: Queryable,
  statement: { text: string; values: unknown[] },
): Promise<R[]> {
  const { rows } = await db.query<R>(prepared(statement.text, statement.values)).catch(rethrowAsStoreFault);
  for (const row of rows) deepFreeze(row.data);
  return rows;
}

/** The rows of a statement that selects ids too, as [id, record]. */
export async function selectEntries<T extends StoredRecord>(
  db: Queryable,
  statement: { text: string; values: unknown[] },
): Promise<Array<[string, T]>> {
  return (await selectRows<{ id: string; data: T }>(db, statement)).map((row) => [decodeKey(row.id), row.data]);
}

/** A list on one table: in one statement selecting the records alone when SQL can answer it all, else narrowed there and finished by query.ts. */
export async function listOn<T extends StoredRecord>(db: Queryable, layout: TableLayout, query: Query): Promise<T[]> {
  const statement = selectSql(layout, query, { withIds: false });
  if (!statement.complete) return runQuery(await selectEntries<T>(db, statement), query);
  return (await selectRows<{ data: T }>(db, statement)).map((row) => row.data);
}

/** jsonb and json columns are parsed restoring what pg-text.ts escaped; other types as pg parses them. */
export function typeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
  if (oid === pg.types.builtins.JSONB || oid === pg.types.builtins.JSON) return decodeJson;
  return pg.types.getTypeParser(oid, format);
}
