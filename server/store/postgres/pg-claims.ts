import { fieldExpression, ident, type TableLayout } from './pg-tables.js';
import { encodeJson, encodeKey } from './pg-text.js';
import type { Claim, ClaimedWrite, LinkedRead, ReadBasis, StoredRecord } from '../store.js';

// Store.claimAndRead and Store.claimAndWrite on PostgreSQL, each one
// statement: a claim's marker, the records its write was decided on, and
// that write, in one commit (where a claim alone, then the read, then the
// write would be three). An insert tries its usual case first, a plain
// INSERT … SELECT that changes nothing unless it writes; the full
// statement runs only after it wrote nothing. Atomic on their own, outside
// any serializable transaction, so concurrent claimers never conflict over
// them.
//
// What each costs in the WAL decides their shape (BENCHMARKS.md, bench:wal):
// - No INSERT … ON CONFLICT: its speculative insertion logs a confirmation
//   record for every row it inserts. A row is inserted only where the
//   statement's snapshot has none; two statements inserting the same key at
//   once make the later fail on the primary key, having changed nothing, and
//   it is run again (pg-store.ts), as is one whose takeover lost a race
//   (`contested`).
// - A claim made with an insert that is written is kept in the row it
//   wrote (its claim columns, pg-tables.ts), not in a marker row with its
//   own key: the marker's heap row and index entry are two of a signed
//   write's WAL records. The same claim comes again only with the same
//   request, whose insert names the same row, so that is where it is looked
//   for. A claim whose write was not made is a marker, as any other.

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

/** Parameters of a statement, numbered as they are added. */
class Parameters {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    return `$${this.values.push(value)}`;
  }
}

/** A number field of a table's records in SQL, as its declared index has it. */
export function numberField(layout: TableLayout, field: string): string {
  return fieldExpression(field, 'number', ident(layout.table));
}

/** Whether the marker of `layout` under `id` is past its time (its field `liveUntil` at most `now`), and whether a live one is there (SQL). */
function liveMarker(
  layout: TableLayout,
  liveUntil: string,
  id: string,
  now: string,
): { expired: string; live: string } {
  const table = ident(layout.table);
  // A marker whose time is unreadable is kept (NULL <= now is not true), as the embedded store keeps one.
  const expired = `${numberField(layout, liveUntil)} <= ${now}`;
  return { expired, live: `EXISTS (SELECT 1 FROM ${table} WHERE id = ${id} AND NOT (${expired}))` };
}

/** The marker's parameters, and the SQL that says whether a live one is there. */
function markerOf(layout: TableLayout, claim: Claim, params: Parameters) {
  const id = params.add(encodeKey(claim.id));
  const value = params.add(encodeJson(claim.value));
  const now = params.add(claim.now);
  return { table: ident(layout.table), id, value, now, ...liveMarker(layout, claim.liveUntil, id, now) };
}

/**
 * The CTEs that record the marker unless `held` (SQL) says a live claim is
 * there, or `unless` says it is kept elsewhere: `fresh` inserts one where
 * there is none, `taken` takes over one past its time. Each answers a row
 * when it did.
 */
function markerSteps(marker: ReturnType<typeof markerOf>, held: string, unless = 'false'): string {
  const { table, id, value, expired } = marker;
  return `fresh AS (INSERT INTO ${table} (id, data) SELECT ${id}, ${value}::jsonb
                     WHERE NOT (${held}) AND NOT (${unless}) AND NOT EXISTS (SELECT 1 FROM ${table} WHERE id = ${id}) RETURNING 1),
          taken AS (UPDATE ${table} SET data = ${value}::jsonb
                     WHERE id = ${id} AND ${expired} AND NOT (${held}) AND NOT (${unless}) RETURNING 1)`;
}

/** One row (r, l): the record with id `idParam` and the one its field `fieldParam` names, each null when absent. */
function linkedJoin(tables: ClaimTables, idParam: string, fieldParam: string): string {
  return `(SELECT 1) AS one LEFT JOIN ${ident(tables.read.table)} r ON r.id = ${idParam} LEFT JOIN ${ident(tables.linked.table)} l ON l.id = r.data->>${fieldParam}::text`;
}

const count = (cte: string) => `(SELECT count(*) FROM ${cte})`;

/**
 * The claim, and the records of `read` as they are now. Columns: claimed
 * (0 or 1), contested (made by nobody, though nothing live held it: run it
 * again), record, linked.
 */
export function claimAndReadSql(tables: ClaimTables, claim: Claim, read: LinkedRead): Statement {
  const params = new Parameters();
  const marker = markerOf(tables.claim, claim, params);
  const join = linkedJoin(tables, params.add(encodeKey(read.id)), params.add(read.field));
  return {
    text: `WITH held AS (SELECT ${marker.live} AS yes),
                ${markerSteps(marker, '(SELECT yes FROM held)')},
                made AS (SELECT ${count('fresh')} + ${count('taken')} AS claims)
           SELECT m.claims AS claimed, m.claims = 0 AND NOT (SELECT yes FROM held) AS contested,
                  r.data AS record, l.data AS linked
             FROM made m, ${join}`,
    values: params.values,
  };
}

/** The conditions on the terminal and account rows `r` and `l` that say the write's basis still holds. */
function basisHolds(basis: ReadBasis, params: Parameters, record: string, linked: string): string {
  const fields = Object.entries(basis.linkedFields).map(
    ([field, value]) => ` AND ${linked}->${params.add(field)}::text = ${params.add(encodeJson(value))}::jsonb`,
  );
  return `${record} = ${params.add(encodeJson(basis.record))}::jsonb AND ${linked} IS NOT NULL${fields.join('')}`;
}

/**
 * The usual signed insert on its own: the row, with its claim, written when
 * no live marker holds the claim, no row has the id and the records of
 * `read` still match `basis`. One INSERT … SELECT: a fraction of the plan
 * nodes of claimAndWriteSql, which PostgreSQL starts up at every execution
 * (a third of its CPU a write, BENCHMARKS.md). A row count of 0 says only
 * that one of those did not hold: nothing was written or claimed, and
 * claimAndWriteSql, run next, says which and makes the claim.
 */
export function usualInsertSql(
  tables: ClaimTables & { write: TableLayout },
  claim: Claim,
  read: LinkedRead,
  basis: ReadBasis,
  write: ClaimedWrite & { kind: 'insert' },
): Statement {
  const params = new Parameters();
  const claimId = params.add(encodeKey(claim.id));
  const marker = liveMarker(tables.claim, claim.liveUntil, claimId, params.add(claim.now));
  const table = ident(tables.write.table);
  const id = params.add(encodeKey(write.id));
  return {
    text: `INSERT INTO ${table} (id, data, claim_id, claim_live_until)
           SELECT ${id}, ${params.add(encodeJson(write.value))}::jsonb, ${claimId}, ${params.add(liveUntilOf(claim))}::double precision
             FROM ${ident(tables.read.table)} r JOIN ${ident(tables.linked.table)} l ON l.id = r.data->>${params.add(read.field)}::text
            WHERE r.id = ${params.add(encodeKey(read.id))} AND ${basisHolds(basis, params, 'r.data', 'l.data')}
              AND NOT ${marker.live} AND NOT EXISTS (SELECT 1 FROM ${table} WHERE id = ${id})`,
    values: params.values,
  };
}

/** The claim's time as its marker has it, kept beside a row written with the claim. */
function liveUntilOf(claim: Claim): number | null {
  const until = claim.value[claim.liveUntil];
  return typeof until === 'number' ? until : null;
}

/**
 * The claim, and the write only if the claim is new and the records of
 * `read` still match `basis`. Columns: claimed, contested (as for
 * claimAndReadSql), current (whether the basis held), written (0 or 1),
 * record and linked (as they are now, when the basis did not hold),
 * existing (for an insert that found a record there, as this statement's
 * snapshot has it).
 */
export function claimAndWriteSql(
  tables: ClaimTables & { write: TableLayout },
  claim: Claim,
  read: LinkedRead,
  basis: ReadBasis,
  write: ClaimedWrite,
): Statement {
  const params = new Parameters();
  const marker = markerOf(tables.claim, claim, params);
  const join = linkedJoin(tables, params.add(encodeKey(read.id)), params.add(read.field));
  const holds = basisHolds(basis, params, 'record', 'linked');
  const table = ident(tables.write.table);
  const id = params.add(encodeKey(write.id));
  const value = params.add(encodeJson(write.value));
  const held = '(SELECT yes FROM held)';
  const current = '(SELECT yes FROM current)';
  const reads = `now_known AS (SELECT r.data AS record, l.data AS linked FROM ${join}),
                 current AS (SELECT EXISTS (SELECT 1 FROM now_known WHERE ${holds}) AS yes)`;
  let steps: string;
  let claimed: string;
  let existing = 'NULL::jsonb';
  if (write.kind === 'insert') {
    // The claim rides in the row written; a replay of the request names the same row.
    const until = params.add(liveUntilOf(claim));
    const keptInRow = `EXISTS (SELECT 1 FROM ${table} WHERE id = ${id} AND claim_id = ${marker.id} AND NOT (claim_live_until <= ${marker.now}))`;
    steps = `held AS (SELECT ${marker.live} OR ${keptInRow} AS yes),
             ${reads},
             written AS (INSERT INTO ${table} (id, data, claim_id, claim_live_until)
                         SELECT ${id}, ${value}::jsonb, ${marker.id}, ${until}::double precision
                          WHERE NOT ${held} AND ${current} AND NOT EXISTS (SELECT 1 FROM ${table} WHERE id = ${id}) RETURNING 1),
             ${markerSteps(marker, held, 'EXISTS (SELECT 1 FROM written)')}`;
    claimed = `${count('written')} + ${count('fresh')} + ${count('taken')}`;
    // After an insert that did not happen, the record there (as this statement's snapshot has it).
    existing = `CASE WHEN c.yes AND m.claims = 1 AND m.writes = 0 THEN (SELECT data FROM ${table} WHERE id = ${id}) END`;
  } else {
    const expected = params.add(encodeJson(write.expected));
    steps = `held AS (SELECT ${marker.live} AS yes),
             ${reads},
             ${markerSteps(marker, held)},
             written AS (UPDATE ${table} SET data = ${value}::jsonb
                          WHERE id = ${id} AND data = ${expected}::jsonb AND ${current}
                            AND (EXISTS (SELECT 1 FROM fresh) OR EXISTS (SELECT 1 FROM taken)) RETURNING 1)`;
    claimed = `${count('fresh')} + ${count('taken')}`;
  }
  // Each step counted once (every subquery is a plan node started and run at each execution).
  return {
    text: `WITH ${steps},
                made AS (SELECT ${claimed} AS claims, ${count('written')} AS writes)
           SELECT m.claims AS claimed, m.claims = 0 AND NOT ${held} AS contested,
                  c.yes AS current, m.writes AS written,
                  CASE WHEN NOT c.yes THEN k.record END AS record, CASE WHEN NOT c.yes THEN k.linked END AS linked,
                  ${existing} AS existing
             FROM made m, current c, now_known k`,
    values: params.values,
  };
}

/** Deletes the records whose number field is at most $1, in one statement on its index. */
export function deleteUpToSql(layout: TableLayout, field: string, max: number): Statement {
  return { text: `DELETE FROM ${ident(layout.table)} WHERE ${numberField(layout, field)} <= $1`, values: [max] };
}

/** The row of a claim step as the statements above answer it. */
export interface ClaimRow<T extends StoredRecord, L extends StoredRecord> {
  claimed: string;
  contested: boolean;
  record: T | null;
  linked: L | null;
}
