import { fieldExpression, ident, type TableLayout } from './pg-tables.js';
import { encodeJson, encodeKey } from './pg-text.js';
import type { Claim, ClaimedWrite, LinkedRead, ReadBasis, StoredRecord } from './store.js';

// Store.claimAndRead and Store.claimAndWrite on PostgreSQL, each one
// statement: a claim's marker, the records its write was decided on, and
// that write, in one commit (where a claim alone, then the read, then the
// write would be three). Atomic on their own, outside any serializable
// transaction, so concurrent claimers never conflict over them.

/** The tables a claim step touches, laid out by the store. */
export interface ClaimTables {
  claim: TableLayout;
  read: TableLayout;
  linked: TableLayout;
  write?: TableLayout;
}

export interface Statement {
  text: string;
  values: unknown[];
}

/** The INSERT that records the claim's marker unless a live one is there (parameters $1 to $3). */
function claimSql(layout: TableLayout, claim: Claim): Statement {
  const table = ident(layout.table);
  return {
    text: `INSERT INTO ${table} (id, data) VALUES ($1, $2::jsonb) ON CONFLICT (id) DO UPDATE SET data = EXCLUDED.data WHERE ${numberField(layout, claim.liveUntil)} <= $3`,
    values: [encodeKey(claim.id), encodeJson(claim.value), claim.now],
  };
}

/** A number field of a table's records in SQL: its column, or the same value read from the document. */
export function numberField(layout: TableLayout, field: string): string {
  const column = layout.columns.get(field);
  const table = ident(layout.table);
  return column?.type === 'number' ? `${table}.${ident(column.name)}` : fieldExpression(field, 'number', table);
}

/** One row (r, l): the record with id $idParam and the one its field $fieldParam names, each null when absent. */
function linkedJoin(tables: ClaimTables, idParam: string, fieldParam: string): string {
  return `(SELECT 1) AS one LEFT JOIN ${ident(tables.read.table)} r ON r.id = ${idParam} LEFT JOIN ${ident(tables.linked.table)} l ON l.id = r.data->>${fieldParam}::text`;
}

/** The claim, and the records of `read` as they are now. Columns: claimed (0 or 1), record, linked. */
export function claimAndReadSql(tables: ClaimTables, claim: Claim, read: LinkedRead): Statement {
  const claimed = claimSql(tables.claim, claim);
  return {
    text: `WITH claim AS (${claimed.text} RETURNING 1)
           SELECT (SELECT count(*) FROM claim) AS claimed, r.data AS record, l.data AS linked
             FROM ${linkedJoin(tables, '$4', '$5')}`,
    values: [...claimed.values, encodeKey(read.id), read.field],
  };
}

/**
 * The claim, and the write only if the claim is new and the records of
 * `read` still match `basis`. Columns: claimed, current (whether the basis
 * held), written (0 or 1), record and linked (as they are now, when the
 * basis did not hold), existing (for an insert that found a record there,
 * as this statement's snapshot has it).
 */
export function claimAndWriteSql(
  tables: ClaimTables & { write: TableLayout },
  claim: Claim,
  read: LinkedRead,
  basis: ReadBasis,
  write: ClaimedWrite,
): Statement {
  const claimed = claimSql(tables.claim, claim);
  const values: unknown[] = [
    ...claimed.values,
    encodeKey(read.id),
    read.field,
    encodeJson(basis.record),
    encodeKey(write.id),
    encodeJson(write.value),
  ];
  const param = (value: unknown) => `$${values.push(value)}`;
  const fields = Object.entries(basis.linkedFields).map(
    ([field, value]) => ` AND linked->${param(field)}::text = ${param(encodeJson(value))}::jsonb`,
  );
  const table = ident(tables.write.table);
  const allowed = 'EXISTS (SELECT 1 FROM claim) AND (SELECT yes FROM current)';
  const writing =
    write.kind === 'insert'
      ? `INSERT INTO ${table} (id, data) SELECT $7, $8::jsonb WHERE ${allowed} ON CONFLICT (id) DO NOTHING RETURNING 1`
      : `UPDATE ${table} SET data = $8::jsonb WHERE id = $7 AND data = ${param(encodeJson(write.expected))}::jsonb AND ${allowed} RETURNING 1`;
  // After an insert that did not happen, the record there (as this statement's snapshot has it).
  const existing =
    write.kind === 'insert'
      ? `CASE WHEN c.yes AND (SELECT count(*) FROM claim) = 1 AND (SELECT count(*) FROM written) = 0 THEN (SELECT data FROM ${table} WHERE id = $7) END`
      : 'NULL::jsonb';
  return {
    text: `WITH claim AS (${claimed.text} RETURNING 1),
                now_known AS (SELECT r.data AS record, l.data AS linked FROM ${linkedJoin(tables, '$4', '$5')}),
                current AS (SELECT EXISTS (SELECT 1 FROM now_known WHERE record = $6::jsonb AND linked IS NOT NULL${fields.join('')}) AS yes),
                written AS (${writing})
           SELECT (SELECT count(*) FROM claim) AS claimed, c.yes AS current, (SELECT count(*) FROM written) AS written,
                  CASE WHEN NOT c.yes THEN k.record END AS record, CASE WHEN NOT c.yes THEN k.linked END AS linked,
                  ${existing} AS existing
             FROM current c, now_known k`,
    values,
  };
}

/** Deletes the records whose number field is at most $1, in one statement on its index. */
export function deleteUpToSql(layout: TableLayout, field: string, max: number): Statement {
  return { text: `DELETE FROM ${ident(layout.table)} WHERE ${numberField(layout, field)} <= $1`, values: [max] };
}

/** The row of a claim step as the statements above answer it. */
export interface ClaimRow<T extends StoredRecord, L extends StoredRecord> {
  claimed: string;
  record: T | null;
  linked: L | null;
}
