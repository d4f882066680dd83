import { createHash } from 'node:crypto';
import { encodeJson, encodeKey } from './pg-text.js';
import type { IndexDeclaration, OrderType } from './record-index.js';
import type { Query, Scalar } from './store.js';

// A list that a declared index serves, as one SQL statement: the equality
// filters, the range, ORDER BY, LIMIT and OFFSET all run in the database,
// on an expression index made from the same declaration. The order matches
// query.ts: records without the field first (NULLS FIRST ascending), ties by
// id in the same direction; numbers compare as numbers.

/** A field of the JSON document as text: the value an index holds for it. */
const text = (field: string) => `(data->>${literal(field)})`;

/**
 * A field's value when it is a JSON string, else NULL: what an equality
 * field's index holds. So the text '1' never equals the number 1 (as in
 * JavaScript), and ANALYZE keeps statistics on exactly what is compared,
 * which the planner needs to prefer the ordered walk to a bitmap and a sort.
 */
const stringValue = (field: string) => `(CASE WHEN jsonb_typeof(data->${literal(field)}) = 'string' THEN data->>${literal(field)} END)`;

/** The order field's value as the declared type. */
function orderExpression(field: string, type: OrderType): string {
  if (type === 'number') return `(CASE WHEN jsonb_typeof(data->${literal(field)}) = 'number' THEN (data->>${literal(field)})::numeric END)`;
  return `(${text(field)} COLLATE "C")`;
}

/** The expression index for a declaration, named after its definition. */
export function indexDefinition(collection: string, declaration: IndexDeclaration): { name: string; sql: string } {
  // Missing values first, as query.ts orders them: a forward walk is ASC NULLS FIRST, a backward one DESC NULLS LAST.
  const columns = [...declaration.equals.map(stringValue), ...(declaration.order ? [`${orderExpression(declaration.order.field, declaration.order.type)} ASC NULLS FIRST`] : []), 'id COLLATE "C"'];
  const body = `ON records (${columns.join(', ')}) WHERE collection = ${literal(encodeKey(collection))}`;
  const name = `records_ix_${createHash('sha256').update(body).digest('hex').slice(0, 16)}`;
  return { name, sql: `CREATE INDEX CONCURRENTLY IF NOT EXISTS ${name} ${body}` };
}

export interface SqlQuery {
  text: string;
  values: unknown[];
}

/** The SELECT for a query served by `declaration`. */
export function selectServed(collection: string, query: Query, declaration: IndexDeclaration): SqlQuery {
  const values: unknown[] = [encodeKey(collection)];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const conditions = ['collection = $1'];
  const where = query.where ?? {};
  // A text value compares as the indexed string value; other values by containment. No containment for
  // the text values: the planner would rather match it on the GIN index and sort than walk this one.
  const contained: Record<string, Scalar> = {};
  for (const [field, value] of Object.entries(where)) {
    if (typeof value === 'string') conditions.push(`${stringValue(field)} = ${param(encodeKey(value))}`);
    else contained[field] = value;
  }
  if (Object.keys(contained).length > 0) conditions.push(`data @> ${param(encodeJson(contained))}::jsonb`);
  const { range } = query;
  if (range) {
    const type = range.field === declaration.order?.field ? declaration.order.type : typeof range.min === 'number' || typeof range.max === 'number' ? 'number' : 'text';
    const expression = orderExpression(range.field, type);
    const cast = type === 'number' ? '::numeric' : '::text';
    conditions.push(`${expression} IS NOT NULL`);
    if (range.min !== undefined) conditions.push(`${expression} >= ${param(range.min)}${cast}${type === 'number' ? '' : ' COLLATE "C"'}`);
    if (range.max !== undefined) conditions.push(`${expression} <= ${param(range.max)}${cast}${type === 'number' ? '' : ' COLLATE "C"'}`);
  }
  let sql = `SELECT id, data FROM records WHERE ${conditions.join(' AND ')}`;
  if (query.orderBy && declaration.order) {
    const direction = query.orderBy.direction === 'desc' ? 'DESC' : 'ASC';
    const nulls = direction === 'ASC' ? 'NULLS FIRST' : 'NULLS LAST';
    sql += ` ORDER BY ${orderExpression(declaration.order.field, declaration.order.type)} ${direction} ${nulls}, id COLLATE "C" ${direction}`;
  }
  if (query.limit !== undefined) sql += ` LIMIT ${param(query.limit)}`;
  if (query.offset) sql += ` OFFSET ${param(query.offset)}`;
  return { text: sql, values };
}

/** A string as an SQL literal (field and collection names come from declarations, never from requests). */
function literal(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}
