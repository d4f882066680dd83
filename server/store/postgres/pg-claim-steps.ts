import type pg from 'pg';
import { appError } from '../../errors.js';
import type { FaultLog } from '../../fault-log.js';
import { deepFreeze } from '../frozen.js';
import type {
  Claim,
  ClaimedWrite,
  ClaimedWriteOutcome,
  LinkedRead,
  LinkedRecords,
  ReadBasis,
  StoredRecord,
} from '../store.js';
import { claimAndReadSql, claimAndWriteSql, usualInsertSql, type ClaimRow, type Statement } from './pg-claims.js';
import { rethrowAsStoreFault } from './pg-faults.js';
import { prepared } from './pg-statements.js';
import { ident, type TableLayout } from './pg-tables.js';
import { encodeKey } from './pg-text.js';

// The claim steps of the PostgreSQL store: each claim and its read or write
// as one statement (pg-claims.ts), run again when it lost a race.

/** A claim statement's answer when it lost a race and changed nothing: it is run again. */
const contested: unique symbol = Symbol('contested');
const UNIQUE_VIOLATION = '23505';
/** Each lost race means another claimer of the same key won, so a second run all but always settles it. */
const CLAIM_ATTEMPTS = 8;

/** The records a claim step read, frozen, each left out when absent. */
function presentFrozen<T extends StoredRecord, L extends StoredRecord>(row: {
  record: T | null;
  linked: L | null;
}): LinkedRecords<T, L> {
  return {
    ...(row.record ? { record: deepFreeze(row.record) } : {}),
    ...(row.linked ? { linked: deepFreeze(row.linked) } : {}),
  };
}

/** The record an insert of `id` found there, read in a statement of its own (whose snapshot includes the writer that won). */
export async function readWinner<T extends StoredRecord>(
  pool: pg.Pool,
  tableOf: (collection: string) => Promise<TableLayout>,
  collection: string,
  id: string,
): Promise<T> {
  const table = ident((await tableOf(collection)).table);
  const { rows } = await pool
    .query<{ data: T }>(prepared(`SELECT data FROM ${table} WHERE id = $1`, [encodeKey(id)]))
    .catch(rethrowAsStoreFault);
  if (!rows[0])
    throw appError('STORE_UNAVAILABLE', `${collection} ${id} was there a moment ago and is gone; try again`);
  return deepFreeze(rows[0].data);
}

export class ClaimSteps {
  constructor(
    private readonly pool: pg.Pool,
    private readonly table: (collection: string) => Promise<TableLayout>,
    private readonly connections: FaultLog,
  ) {}

  claimAndRead<T extends StoredRecord, L extends StoredRecord>(
    claim: Claim,
    read: LinkedRead,
  ): Promise<{ claimed: boolean } & LinkedRecords<T, L>> {
    return this.claimStep(async () => {
      const statement = claimAndReadSql(
        {
          claim: await this.table(claim.collection),
          read: await this.table(read.collection),
          linked: await this.table(read.linkedCollection),
        },
        claim,
        read,
      );
      const row = await this.oneRow<ClaimRow<T, L>>(statement);
      return row.contested ? contested : { claimed: Number(row.claimed) === 1, ...presentFrozen(row) };
    });
  }

  /**
   * The claim and the write as one statement; an insert tries the usual
   * case first (usualInsertSql), which writes or changes nothing. When an
   * insert found a record there, it is read too (by another statement if it
   * was written after this one began).
   */
  claimAndWrite<T extends StoredRecord, L extends StoredRecord>(
    claim: Claim,
    read: LinkedRead,
    basis: ReadBasis,
    write: ClaimedWrite,
  ): Promise<ClaimedWriteOutcome<T, L>> {
    return this.claimStep(async () => {
      const tables = {
        claim: await this.table(claim.collection),
        read: await this.table(read.collection),
        linked: await this.table(read.linkedCollection),
        write: await this.table(write.collection),
      };
      if (write.kind === 'insert') {
        const usual = usualInsertSql(tables, claim, read, basis, write);
        const { rowCount } = await this.pool.query(prepared(usual.text, usual.values)).catch(rethrowAsStoreFault);
        if (rowCount === 1) return { claimed: true, written: true };
      }
      const row = await this.oneRow<
        ClaimRow<T, L> & { current: boolean; written: string; existing: StoredRecord | null }
      >(claimAndWriteSql(tables, claim, read, basis, write));
      if (row.contested) return contested;
      const claimed = Number(row.claimed) === 1;
      if (!row.current) return { claimed, written: false, changed: presentFrozen(row) };
      const written = Number(row.written) === 1;
      if (!claimed || written || write.kind === 'replace') return { claimed, written };
      if (row.existing) return { claimed, written, existing: deepFreeze(row.existing) };
      // Written by another statement after this one's snapshot.
      return { claimed, written, existing: await readWinner(this.pool, this.table, write.collection, write.id) };
    });
  }

  /**
   * A claim step's work, its success reported to the connection's fault
   * log. A statement that lost a race (pg-claims.ts: the same key inserted
   * by another at the same moment, or a marker it meant to take over
   * changed under it) changed nothing, and is run again: the next one's
   * snapshot has the winner.
   */
  private async claimStep<R>(work: () => Promise<R | typeof contested>): Promise<R> {
    for (let attempt = 1; ; attempt++) {
      const result: R | typeof contested = await work().catch((error: unknown) => {
        if ((error as { code?: string }).code === UNIQUE_VIOLATION) return contested;
        throw error;
      });
      if (result !== contested) {
        this.connections.succeeded();
        return result;
      }
      if (attempt === CLAIM_ATTEMPTS) throw appError('STORE_UNAVAILABLE', `a claim lost ${attempt} races in a row`);
    }
  }

  private async oneRow<R extends pg.QueryResultRow>(statement: Statement): Promise<R> {
    const { rows } = await this.pool.query<R>(prepared(statement.text, statement.values)).catch(rethrowAsStoreFault);
    return rows[0]!;
  }
}
