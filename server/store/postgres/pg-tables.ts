import { createHash } from 'node:crypto';
import { encodeJson, encodeKey } from './pg-text.js';
import type { IndexDeclaration } from '../store.js';
import type { Query, Scalar } from '../store.js';

// How the PostgreSQL store lays collections out: a table per collection,
// named after it (settlements, orders, …), with the record whole in `data`
// (jsonb). Each field its declarations query, sort or bound is an
// expression on `data` (text in the "C" collation, or double precision),
// and the declared indexes are indexes on those expressions.
// - Expressions, so an index can never disagree with the record it comes
//   from, and an instance of an older version (which writes only id and
//   data) keeps its rows indexed beside a newer one.
// - Not generated columns (as before): PostgreSQL parses a table's
//   generation expressions again for every INSERT statement it executes
//   (a fifth of a signed settlement's backend CPU, BENCHMARKS.md), where an
//   index's expressions are parsed once per connection. Tables made by an
//   older version keep their generated columns, which that version's
//   instances still read, until `svc-store finish-upgrade` drops them
//   (leftoverColumns, pg-upgrade.ts).
// An expression holds the field only when it has its type; a value of
// another type (never written by the server itself) reads as missing.
// Everything here is pure: SQL text and parameters, no I/O.

export type FieldType = 'text' | 'number';

/** A field the declarations query, sort or bound, and the type its expression reads it as. */
export interface IndexedField {
  field: string;
  type: FieldType;
}

export interface TableLayout {
  collection: string;
  /** Unquoted; quote with ident(). */
  table: string;
  fields: ReadonlyMap<string, IndexedField>;
  indexes: ReadonlyArray<{ name: string; sql: string }>;
  /** The field every id begins with, then "/" (IndexDeclaration.idStartsWithIt): its lists are bounded on the key. */
  idPrefixField?: string;
}

/** What follows the field's value in an id that starts with it, and the character after that one. */
const ID_PREFIX_END = '/';
const AFTER_ID_PREFIX_END = '0';

/** Tables of the store itself, which no collection may take. */
const OWN_TABLES = new Set(['records', 'leases', 'bus_spill', 'schema_migrations']);

/** Whether a table of the schema is a collection's (every table but the store's own). */
export const isCollectionTable = (table: string): boolean => !OWN_TABLES.has(table);

/**
 * The table of a collection: its own name when it is a plain lower-case
 * identifier (what operators type in SQL), else a name made from a hash of
 * it, so that any collection name maps to exactly one table.
 */
export function tableName(collection: string): string {
  if (/^[a-z][a-z0-9_]{0,39}$/.test(collection) && !OWN_TABLES.has(collection)) return collection;
  return `c_${createHash('sha256').update(collection).digest('hex').slice(0, 24)}`;
}

/** An identifier quoted for SQL. */
export function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** A string as an SQL literal (field names come from declarations, never from requests). */
export function literal(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/** The fields and indexes a collection's declarations ask for. Throws when a field is declared with two types. */
export function tableLayout(collection: string, declarations: readonly IndexDeclaration[] = []): TableLayout {
  const table = tableName(collection);
  const fields = new Map<string, IndexedField>();
  const want = (field: string, type: FieldType) => {
    const existing = fields.get(field);
    if (existing && existing.type !== type)
      throw new Error(`${collection}.${field} is declared both as ${existing.type} and as ${type}`);
    fields.set(field, { field, type });
  };
  // Order fields first: an equality field is text unless it is ordered as a number.
  for (const declaration of declarations)
    if (declaration.order) want(declaration.order.field, declaration.order.type === 'number' ? 'number' : 'text');
  for (const declaration of declarations)
    for (const field of declaration.equals) if (!fields.has(field)) want(field, 'text');
  const indexes = new Map<string, { name: string; sql: string }>();
  let idPrefixField: string | undefined;
  for (const declaration of declarations) {
    if (declaration.idStartsWithIt) {
      const [field, ...more] = declaration.equals;
      if (!field || more.length > 0 || (declaration.order && declaration.order.field !== field))
        throw new Error(`${collection}: an id starts with one field, ordered by the id alone`);
      idPrefixField = field;
      continue; // served by the primary key
    }
    // An order on a field the equalities fix is an order by id alone: the index needs it once, not twice.
    const ordered =
      declaration.order && !declaration.equals.includes(declaration.order.field) ? declaration.order.field : undefined;
    // Missing values first, as query.ts orders them: a forward walk is ASC NULLS FIRST, a backward one DESC NULLS LAST.
    const parts = [
      ...declaration.equals.map((field) => fieldSql(fields.get(field)!)),
      ...(ordered ? [`${fieldSql(fields.get(ordered)!)} ASC NULLS FIRST`] : []),
      'id',
    ];
    const body = `ON ${ident(table)} (${parts.join(', ')})`;
    // A table name is at most 40 characters (tableName), so an index name stays within the 63 PostgreSQL allows.
    const name = `${table}_ix_${createHash('sha256').update(body).digest('hex').slice(0, 12)}`;
    // Two declarations that come to the same index share it: every write updates each index once.
    indexes.set(name, { name, sql: `CREATE INDEX CONCURRENTLY IF NOT EXISTS ${ident(name)} ${body}` });
  }
  return { collection, table, fields, indexes: [...indexes.values()], ...(idPrefixField ? { idPrefixField } : {}) };
}

/** A field's value as `type`, from the record (of `table`, when named); null when the field has another type. */
export function fieldExpression(field: string, type: FieldType, table?: string): string {
  const data = table ? `${table}.data` : 'data';
  const value = `${data}->${literal(field)}`;
  return type === 'number'
    ? `(CASE WHEN jsonb_typeof(${value}) = 'number' THEN (${data}->>${literal(field)})::double precision END)`
    : `(CASE WHEN jsonb_typeof(${value}) = 'string' THEN ${data}->>${literal(field)} END)`;
}

/**
 * An indexed field in SQL, as its indexes have it (the planner uses an index
 * only for the same expression in the same collation).
 */
export function fieldSql(indexed: IndexedField, table?: string): string {
  const expression = fieldExpression(indexed.field, indexed.type, table);
  return indexed.type === 'text' ? `${expression} COLLATE "C"` : expression;
}

/**
 * The columns a row written with a signature claim keeps it in (pg-claims.ts),
 * null in every other row (a null costs a bit of the row's null bitmap).
 */
export const CLAIM_COLUMNS = [
  { name: 'claim_id', definition: 'claim_id text COLLATE "C"', catalogType: 'text' },
  { name: 'claim_live_until', definition: 'claim_live_until double precision', catalogType: 'double precision' },
] as const;

/** The columns of a table of this version: the key, the record, and where a claimed insert keeps its claim. */
const OWN_COLUMNS = new Set(['id', 'data', ...CLAIM_COLUMNS.map((column) => column.name)]);

/** Creates the table, unless it exists. */
export function createTableSql(layout: TableLayout): string {
  const columns = ['id text COLLATE "C" PRIMARY KEY', 'data jsonb NOT NULL', ...CLAIM_COLUMNS.map((c) => c.definition)];
  return `CREATE TABLE IF NOT EXISTS ${ident(layout.table)} (${columns.join(', ')})`;
}

/** What it takes to bring an existing table to the layout: the claim columns, where an older version made it without. */
export function alterTableSql(layout: TableLayout, existing: ReadonlyMap<string, string>): string[] {
  return CLAIM_COLUMNS.filter((column) => existing.get(column.name) !== column.catalogType).map(
    (column) => `ALTER TABLE ${ident(layout.table)} ADD COLUMN IF NOT EXISTS ${column.definition}`,
  );
}

/**
 * The columns of an existing table that this version neither reads nor
 * writes: an older version's generated columns (each computed again on
 * every write), kept while an instance of that version may still read them.
 */
export function leftoverColumns(existing: ReadonlyMap<string, string>): string[] {
  return [...existing.keys()].filter((name) => !OWN_COLUMNS.has(name));
}

/** Drops the leftover columns (and with them the older version's indexes on them). */
export function dropLeftoversSql(table: string, leftovers: readonly string[]): string | undefined {
  if (leftovers.length === 0) return undefined;
  return `ALTER TABLE ${ident(table)} ${leftovers.map((name) => `DROP COLUMN IF EXISTS ${ident(name)}`).join(', ')}`;
}

export interface SqlQuery {
  text: string;
  values: unknown[];
  /**
   * True when the statement answers the whole query (filters, order and
   * page); false when it only narrows it, and query.ts finishes the work
   * on the rows it returns.
   */
  complete: boolean;
}

/** A value an expression of `type` holds (else it stays in the document: compared by containment). */
function fits(value: unknown, type: FieldType): value is string | number {
  return type === 'number' ? typeof value === 'number' : typeof value === 'string';
}

/** The WHERE conditions for equality filters: the field's expression where the value fits it, containment on the document otherwise. */
function whereConditions(layout: TableLayout, where: Query['where'], param: (value: unknown) => string): string[] {
  const conditions: string[] = [];
  const contained: Record<string, Scalar> = {};
  for (const [field, value] of Object.entries(where ?? {})) {
    const indexed = layout.fields.get(field);
    if (indexed && fits(value, indexed.type))
      // Stryker disable next-line ConditionalExpression: encodeKey leaves a number as it is; the test says what the value is for
      conditions.push(`${fieldSql(indexed)} = ${param(indexed.type === 'text' ? encodeKey(value as string) : value)}`);
    else contained[field] = value;
  }
  if (Object.keys(contained).length > 0) conditions.push(`data @> ${param(encodeJson(contained))}::jsonb`);
  return conditions;
}

/**
 * The SELECT for a list: everything SQL can answer on the indexed fields, in
 * one statement. A range or an order on a field not indexed (or bounds
 * of another type) leaves the rest to query.ts. With `withIds: false`, a
 * list answered whole selects the records alone.
 */
export function selectSql(
  layout: TableLayout,
  query: Query = {},
  options: { lock?: boolean; withIds?: boolean } = {},
): SqlQuery {
  const values: unknown[] = [];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const conditions = whereConditions(layout, query.where, param);
  const field = layout.idPrefixField;
  const idPrefix = field ? query.where?.[field] : undefined;
  if (typeof idPrefix === 'string' && (!query.orderBy || query.orderBy.field === field)) {
    // In the ids' order: the ids that start with it, a range of the primary key walked in its order.
    const key = encodeKey(idPrefix);
    conditions.push(`id >= ${param(key + ID_PREFIX_END)}`, `id < ${param(key + AFTER_ID_PREFIX_END)}`);
  }
  let complete = true;
  const { range } = query;
  if (range) {
    const indexed = layout.fields.get(range.field);
    const bounds = [range.min, range.max].filter((bound) => bound !== undefined);
    if (indexed && bounds.every((bound) => fits(bound, indexed.type))) {
      const name = fieldSql(indexed);
      const cast = indexed.type === 'number' ? '::double precision' : '';
      // Stryker disable next-line ConditionalExpression: encodeKey leaves a number as it is; the test says what the value is for
      const bound = (value: Scalar) => param(indexed.type === 'text' ? encodeKey(value as string) : value) + cast;
      conditions.push(`${name} IS NOT NULL`);
      if (range.min !== undefined) conditions.push(`${name} >= ${bound(range.min)}`);
      if (range.max !== undefined) conditions.push(`${name} <= ${bound(range.max)}`);
    } else complete = false;
  }
  const order = query.orderBy && { ...query.orderBy, indexed: layout.fields.get(query.orderBy.field) };
  if (order && !order.indexed) complete = false;
  // A list SQL answers whole needs only the records; one finished in memory (or asked with ids) needs their ids too.
  const columns = complete && options.withIds === false ? 'data' : 'id, data';
  let text = `SELECT ${columns} FROM ${ident(layout.table)}${conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : ''}`;
  if (complete) {
    if (order?.indexed) {
      const direction = order.direction === 'desc' ? 'DESC' : 'ASC';
      text += ` ORDER BY ${fieldSql(order.indexed)} ${direction} ${direction === 'ASC' ? 'NULLS FIRST' : 'NULLS LAST'}, id ${direction}`;
    }
    if (query.limit !== undefined) text += ` LIMIT ${param(query.limit)}`;
    if (query.offset) text += ` OFFSET ${param(query.offset)}`;
  }
  if (options.lock) text += ' FOR UPDATE';
  return { text, values, complete };
}

/** The count of records matching `where`. */
export function countSql(layout: TableLayout, where: Query['where']): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const conditions = whereConditions(layout, where, (value) => {
    values.push(value);
    return `$${values.length}`;
  });
  return {
    text: `SELECT count(*) AS n FROM ${ident(layout.table)}${conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : ''}`,
    values,
  };
}
