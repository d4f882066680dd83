import { createHash } from 'node:crypto';
import { encodeJson, encodeKey } from './pg-text.js';
import type { IndexDeclaration } from '../store.js';
import type { Query, Scalar } from '../store.js';

// How the PostgreSQL store lays collections out: a table per collection,
// named after it (settlements, orders, …), with the record whole in `data`
// (jsonb) and each field its declarations query, sort or bound as a typed
// column generated from it (text in the "C" collation, or double precision).
// Generated, so a column can never disagree with the record it comes from,
// an instance of an older version (which writes only id and data) keeps
// working beside a newer one, and a declaration that gains a field adds
// its column to every existing row with one ALTER TABLE. A column holds
// the field only when it has the column's type; a value of another type
// (never written by the server itself) reads as missing in SQL.
// Everything here is pure: SQL text and parameters, no I/O.

export type ColumnType = 'text' | 'number';

export interface Column {
  field: string;
  /** The column's name: the field's own, but for the two the table itself uses. */
  name: string;
  type: ColumnType;
}

export interface TableLayout {
  collection: string;
  /** Unquoted; quote with ident(). */
  table: string;
  columns: ReadonlyMap<string, Column>;
  indexes: ReadonlyArray<{ name: string; sql: string }>;
  /** The field every id begins with, then "/" (IndexDeclaration.idStartsWithIt): its lists are bounded on the key. */
  idPrefixField?: string;
}

/** What follows the field's value in an id that starts with it, and the character after that one. */
const ID_PREFIX_END = '/';
const AFTER_ID_PREFIX_END = '0';

/** Tables of the store itself, which no collection may take. */
const OWN_TABLES = new Set(['records', 'leases', 'bus_spill', 'schema_migrations']);

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

const columnName = (field: string) => (field === 'id' || field === 'data' ? `field_${field}` : field);

/** The columns and indexes a collection's declarations ask for. Throws when a field is declared with two types. */
export function tableLayout(collection: string, declarations: readonly IndexDeclaration[] = []): TableLayout {
  const table = tableName(collection);
  const columns = new Map<string, Column>();
  const want = (field: string, type: ColumnType) => {
    const existing = columns.get(field);
    if (existing && existing.type !== type)
      throw new Error(`${collection}.${field} is declared both as ${existing.type} and as ${type}`);
    columns.set(field, { field, name: columnName(field), type });
  };
  // Order fields first: an equality field is text unless it is ordered as a number.
  for (const declaration of declarations)
    if (declaration.order) want(declaration.order.field, declaration.order.type === 'number' ? 'number' : 'text');
  for (const declaration of declarations)
    for (const field of declaration.equals) if (!columns.has(field)) want(field, 'text');
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
      ...declaration.equals.map((field) => ident(columns.get(field)!.name)),
      ...(ordered ? [`${ident(columns.get(ordered)!.name)} ASC NULLS FIRST`] : []),
      'id',
    ];
    const body = `ON ${ident(table)} (${parts.join(', ')})`;
    // A table name is at most 40 characters (tableName), so an index name stays within the 63 PostgreSQL allows.
    const name = `${table}_ix_${createHash('sha256').update(body).digest('hex').slice(0, 12)}`;
    // Two declarations that come to the same index share it: every write updates each index once.
    indexes.set(name, { name, sql: `CREATE INDEX CONCURRENTLY IF NOT EXISTS ${ident(name)} ${body}` });
  }
  return { collection, table, columns, indexes: [...indexes.values()], ...(idPrefixField ? { idPrefixField } : {}) };
}

/** A field's value as its column's type, from the record (of `table`, when named): what a generated column holds. */
export function fieldExpression(field: string, type: ColumnType, table?: string): string {
  const data = table ? `${table}.data` : 'data';
  const value = `${data}->${literal(field)}`;
  return type === 'number'
    ? `(CASE WHEN jsonb_typeof(${value}) = 'number' THEN (${data}->>${literal(field)})::double precision END)`
    : `(CASE WHEN jsonb_typeof(${value}) = 'string' THEN ${data}->>${literal(field)} END)`;
}

function columnDefinition(column: Column): string {
  const type = column.type === 'number' ? 'double precision' : 'text COLLATE "C"';
  return `${ident(column.name)} ${type} GENERATED ALWAYS AS ${fieldExpression(column.field, column.type)} STORED`;
}

/**
 * The columns a row written with a signature claim keeps it in (pg-claims.ts),
 * null in every other row (a null costs a bit of the row's null bitmap).
 */
export const CLAIM_COLUMNS = [
  { name: 'claim_id', definition: 'claim_id text COLLATE "C"', catalogType: 'text' },
  { name: 'claim_live_until', definition: 'claim_live_until double precision', catalogType: 'double precision' },
] as const;

/** Creates the table with its columns, unless it exists. */
export function createTableSql(layout: TableLayout): string {
  const columns = [
    'id text COLLATE "C" PRIMARY KEY',
    'data jsonb NOT NULL',
    ...CLAIM_COLUMNS.map((column) => column.definition),
    ...[...layout.columns.values()].map(columnDefinition),
  ];
  return `CREATE TABLE IF NOT EXISTS ${ident(layout.table)} (${columns.join(', ')})`;
}

/**
 * What it takes to bring an existing table to the layout: a column of
 * another type is made again; columns no declaration names stay (an
 * instance of another version may still use them).
 */
export function alterTableSql(layout: TableLayout, existing: ReadonlyMap<string, string>): string[] {
  const statements: string[] = [];
  for (const column of CLAIM_COLUMNS)
    if (existing.get(column.name) !== column.catalogType)
      statements.push(`ALTER TABLE ${ident(layout.table)} ADD COLUMN IF NOT EXISTS ${column.definition}`);
  for (const column of layout.columns.values()) {
    const type = existing.get(column.name);
    const wanted = column.type === 'number' ? 'double precision' : 'text';
    if (type === wanted) continue;
    if (type !== undefined) statements.push(`ALTER TABLE ${ident(layout.table)} DROP COLUMN ${ident(column.name)}`);
    statements.push(`ALTER TABLE ${ident(layout.table)} ADD COLUMN ${columnDefinition(column)}`);
  }
  return statements;
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

/** A value a column of `type` holds (else it stays in the document: compared by containment). */
function fits(value: unknown, type: ColumnType): value is string | number {
  return type === 'number' ? typeof value === 'number' : typeof value === 'string';
}

/** The WHERE conditions for equality filters: a column where the value fits it, containment on the document otherwise. */
function whereConditions(layout: TableLayout, where: Query['where'], param: (value: unknown) => string): string[] {
  const conditions: string[] = [];
  const contained: Record<string, Scalar> = {};
  for (const [field, value] of Object.entries(where ?? {})) {
    const column = layout.columns.get(field);
    if (column && fits(value, column.type))
      conditions.push(`${ident(column.name)} = ${param(column.type === 'text' ? encodeKey(value as string) : value)}`);
    else contained[field] = value;
  }
  if (Object.keys(contained).length > 0) conditions.push(`data @> ${param(encodeJson(contained))}::jsonb`);
  return conditions;
}

/**
 * The SELECT for a list: everything SQL can answer on the columns, in one
 * statement. A range or an order on a field without a column (or bounds
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
    const column = layout.columns.get(range.field);
    const bounds = [range.min, range.max].filter((bound) => bound !== undefined);
    if (column && bounds.every((bound) => fits(bound, column.type))) {
      const name = ident(column.name);
      const cast = column.type === 'number' ? '::double precision' : '';
      conditions.push(`${name} IS NOT NULL`);
      if (range.min !== undefined)
        conditions.push(
          `${name} >= ${param(column.type === 'text' ? encodeKey(range.min as string) : range.min)}${cast}`,
        );
      if (range.max !== undefined)
        conditions.push(
          `${name} <= ${param(column.type === 'text' ? encodeKey(range.max as string) : range.max)}${cast}`,
        );
    } else complete = false;
  }
  const orderColumn = query.orderBy ? layout.columns.get(query.orderBy.field) : undefined;
  if (query.orderBy && !orderColumn) complete = false;
  // A list SQL answers whole needs only the records; one finished in memory (or asked with ids) needs their ids too.
  const columns = complete && options.withIds === false ? 'data' : 'id, data';
  let text = `SELECT ${columns} FROM ${ident(layout.table)}${conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : ''}`;
  if (complete) {
    if (query.orderBy && orderColumn) {
      const direction = query.orderBy.direction === 'desc' ? 'DESC' : 'ASC';
      text += ` ORDER BY ${ident(orderColumn.name)} ${direction} ${direction === 'ASC' ? 'NULLS FIRST' : 'NULLS LAST'}, id ${direction}`;
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
