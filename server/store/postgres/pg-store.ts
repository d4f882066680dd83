import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { appError } from '../../errors.js';
import { FaultLog } from '../../fault-log.js';
import { silentLogger, type Logger } from '../../log.js';
import type { IndexDeclarations } from '../store.js';
import { deepFreeze } from '../frozen.js';
import { PgBus } from './pg-bus.js';
import {
  claimAndReadSql,
  claimAndWriteSql,
  deleteUpToSql,
  usualInsertSql,
  type ClaimRow,
  type Statement,
} from './pg-claims.js';
import { rethrowAsStoreFault } from './pg-faults.js';
import { ensureDeclaredIndexes } from './pg-indexes.js';
import { leaseSql, releaseSql } from './pg-leases.js';
import { layOutTable, migrate, readSchema } from './pg-migrations.js';
import { listOn, prepared, typeParser } from './pg-statements.js';
import { alterTableSql, countSql, ident, tableLayout, type TableLayout } from './pg-tables.js';
import { decodeKey, encodeJson, encodeKey } from './pg-text.js';
import { runSerializable } from './pg-transaction.js';
import { leftoversIn, leftoversNotice } from './pg-upgrade.js';
import type {
  Claim,
  ClaimedWrite,
  ClaimedWriteOutcome,
  LinkedRead,
  LinkedRecords,
  Query,
  ReadBasis,
  Store,
  StoredRecord,
  Transaction,
} from '../store.js';

export { migrate };

// The PostgreSQL store (DATABASE_URL): the same Store contract as the
// embedded one, on a table per collection (pg-tables.ts), laid out and
// indexed from the declarations (pg-indexes.ts), migrated at start-up
// (pg-migrations.ts). Transactions are SERIALIZABLE and retried on
// serialisation failures (pg-transaction.ts); the one-record writes and
// the claim steps (pg-claims.ts) are single statements outside them.
// Strings go in and out through pg-text.ts, so text jsonb or a text column
// cannot hold is stored all the same; a fault of the database or of the
// connection becomes StoreUnavailableError (503 with Retry-After), and a
// connection that failed is thrown away, never handed out again.

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

export class PgStore implements Store {
  readonly kind = 'postgres';
  /** Who holds this instance's leases: one id per opened store. */
  readonly instanceId = randomUUID();

  private constructor(
    private readonly pool: pg.Pool,
    private readonly connectionString: string,
    readonly bus: PgBus,
    private readonly connections: FaultLog,
    private readonly log: Logger,
    /** The tables as they were when the store opened: a table already laid out needs no DDL. */
    private readonly schemaAtOpen: Map<string, Map<string, string>>,
  ) {}

  static async open(options: { connectionString: string; max?: number; log?: Logger }): Promise<PgStore> {
    const log = options.log ?? silentLogger;
    const pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.max ?? 10,
      // A request waits at most this long for a connection, then answers 503, rather than hanging through an outage.
      connectionTimeoutMillis: 5_000,
      types: { getTypeParser: typeParser },
    });
    const connections = new FaultLog(log, 'the connection to PostgreSQL');
    // An idle connection the server dropped: the pool discards it; without a listener the process would exit.
    pool.on('error', (error) => connections.failed(error));
    // A connection can be dropped between the pool handing it over and its holder listening (the
    // server's FATAL can arrive in the same read as the handshake's end): every client listens
    // from birth. The pool still discards it (it is no longer queryable), and the holder's query fails.
    pool.on('connect', (client) => client.on('error', (error) => connections.failed(error)));
    let schema: Map<string, Map<string, string>>;
    try {
      await migrate(pool);
      schema = await readSchema(pool);
      const notice = leftoversNotice(leftoversIn(schema));
      if (notice) log.warn(notice);
    } catch (error) {
      await pool.end();
      throw error;
    }
    return new PgStore(
      pool,
      options.connectionString,
      new PgBus(pool, options.connectionString, log),
      connections,
      log,
      schema,
    );
  }

  private declared: IndexDeclarations = {};
  private indexing: Promise<void> = Promise.resolve();
  /** Each collection's table, laid out for the current declarations, once it exists with their columns. */
  private tables = new Map<string, Promise<TableLayout>>();

  /**
   * Lists run as one SQL statement on the tables' typed columns
   * (pg-tables.ts), served by ordinary indexes made from the declarations:
   * created here, in the background and concurrently (writes go on), by
   * one instance at a time.
   */
  declareIndexes(declarations: IndexDeclarations): void {
    this.declared = declarations;
    // Tables laid out before: laid out again, for the columns the declarations add.
    this.tables = new Map();
    this.indexing = this.ensureIndexes().catch((error: Error) => {
      // Lists still work meanwhile (by scan); the indexes are made once the database lets us.
      this.log.warn('could not create the declared indexes yet; trying again in 30 s', { error: error.message });
      const retry = setTimeout(() => this.closing || this.declareIndexes(declarations), 30_000);
      retry.unref();
    });
  }

  private closing = false;

  /** The collection's table, created or given the declared columns first when it lacks them. */
  private table = (collection: string): Promise<TableLayout> => {
    let ready = this.tables.get(collection);
    if (!ready) {
      ready = this.layOut(tableLayout(collection, this.declared[collection]));
      this.tables.set(collection, ready);
      // A failure is not kept: the next use tries again.
      ready.catch(() => this.tables.get(collection) === ready && this.tables.delete(collection));
    }
    return ready;
  };

  private async layOut(layout: TableLayout): Promise<TableLayout> {
    const known = this.schemaAtOpen.get(layout.table);
    if (known && alterTableSql(layout, known).length === 0) return layout;
    await layOutTable(this.connectionString, layout, (error) => this.connections.failed(error)).catch(
      rethrowAsStoreFault,
    );
    return layout;
  }

  /**
   * One statement, outside any serializable transaction: the primary key
   * decides, so concurrent writers of other keys never conflict (a
   * serializable "is it there?" read locks the key's whole index page, and
   * sequential keys, such as one terminal's batches, share that page).
   */
  async insertIfAbsent<T extends StoredRecord>(
    collection: string,
    id: string,
    value: StoredRecord,
  ): Promise<T | undefined> {
    const table = ident((await this.table(collection)).table);
    const key = encodeKey(id);
    const { rowCount } = await this.pool
      .query(
        prepared(`INSERT INTO ${table} (id, data) VALUES ($1, $2::jsonb) ON CONFLICT (id) DO NOTHING`, [
          key,
          encodeJson(value),
        ]),
      )
      .catch(rethrowAsStoreFault);
    this.connections.succeeded();
    if (rowCount === 1) return undefined;
    // Not inserted: the record there is read in a statement of its own, so its snapshot includes the writer that won.
    return this.readWinner<T>(collection, id);
  }

  /** The record an insert of `id` found there, read in a statement of its own (whose snapshot includes the writer that won). */
  private async readWinner<T extends StoredRecord>(collection: string, id: string): Promise<T> {
    const table = ident((await this.table(collection)).table);
    const { rows } = await this.pool
      .query<{ data: T }>(prepared(`SELECT data FROM ${table} WHERE id = $1`, [encodeKey(id)]))
      .catch(rethrowAsStoreFault);
    if (!rows[0])
      throw appError('STORE_UNAVAILABLE', `${collection} ${id} was there a moment ago and is gone; try again`);
    return deepFreeze(rows[0].data);
  }

  /** One conditional UPDATE: the row changes only if its document still equals `expected` (jsonb equality). */
  async replaceIf(collection: string, id: string, expected: StoredRecord, next: StoredRecord): Promise<boolean> {
    const table = ident((await this.table(collection)).table);
    const { rowCount } = await this.pool
      .query(
        prepared(`UPDATE ${table} SET data = $3::jsonb WHERE id = $1 AND data = $2::jsonb`, [
          encodeKey(id),
          encodeJson(expected),
          encodeJson(next),
        ]),
      )
      .catch(rethrowAsStoreFault);
    this.connections.succeeded();
    return rowCount === 1;
  }

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
      return { claimed, written, existing: await this.readWinner(write.collection, write.id) };
    });
  }

  async deleteUpTo(collection: string, field: string, max: number): Promise<void> {
    const statement = deleteUpToSql(await this.table(collection), field, max);
    await this.pool.query(prepared(statement.text, statement.values)).catch(rethrowAsStoreFault);
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

  /** Resolves once the declared indexes exist (tests and benches wait for it). */
  indexesReady(): Promise<void> {
    return this.indexing;
  }

  private async ensureIndexes(): Promise<void> {
    await ensureDeclaredIndexes(this.pool, await Promise.all(Object.keys(this.declared).map(this.table)));
  }

  /** Resolves when the database answers; rejects with StoreUnavailableError otherwise. */
  async ping(): Promise<void> {
    await this.pool.query('SELECT 1').catch(rethrowAsStoreFault);
    this.connections.succeeded();
  }

  async lease(collection: string, ids: readonly string[], ms: number): Promise<string[]> {
    if (ids.length === 0) return [];
    const statement = leaseSql(await this.table(collection), collection, ids, this.instanceId, ms);
    const { rows } = await this.pool
      .query<{ id: string }>(prepared(statement.text, statement.values))
      .catch(rethrowAsStoreFault);
    return rows.map((row) => decodeKey(row.id));
  }

  async release(collection: string, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const statement = releaseSql(collection, ids, this.instanceId);
    await this.pool.query(prepared(statement.text, statement.values)).catch(rethrowAsStoreFault);
  }

  async get<T extends StoredRecord>(collection: string, id: string): Promise<T | undefined> {
    const table = ident((await this.table(collection)).table);
    const { rows } = await this.pool
      .query<{ data: T }>(prepared(`SELECT data FROM ${table} WHERE id = $1`, [encodeKey(id)]))
      .catch(rethrowAsStoreFault);
    return rows[0] ? deepFreeze(rows[0].data) : undefined;
  }

  async getLinked<T extends StoredRecord, L extends StoredRecord>(
    collection: string,
    id: string,
    field: string,
    linkedCollection: string,
  ): Promise<[T | undefined, L | undefined]> {
    const table = ident((await this.table(collection)).table);
    const linked = ident((await this.table(linkedCollection)).table);
    // The field's text as jsonb gives it is the linked id as encodeKey writes it: pg-text.ts escapes both alike.
    const { rows } = await this.pool
      .query<{ record: T; linked: L | null }>(
        prepared(
          `SELECT r.data AS record, l.data AS linked FROM ${table} r LEFT JOIN ${linked} l ON l.id = r.data->>$2 WHERE r.id = $1`,
          [encodeKey(id), field],
        ),
      )
      .catch(rethrowAsStoreFault);
    const row = rows[0];
    return [row ? deepFreeze(row.record) : undefined, row?.linked ? deepFreeze(row.linked) : undefined];
  }

  async list<T extends StoredRecord>(collection: string, query: Query = {}): Promise<T[]> {
    return listOn<T>(this.pool, await this.table(collection), query);
  }

  async count(collection: string, where?: Query['where']): Promise<number> {
    const statement = countSql(await this.table(collection), where);
    const { rows } = await this.pool
      .query<{ n: string }>(prepared(statement.text, statement.values))
      .catch(rethrowAsStoreFault);
    return Number(rows[0]!.n);
  }

  transact<R>(work: (tx: Transaction) => Promise<R> | R): Promise<R> {
    return runSerializable(this.pool, this.table, this.connections, work);
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.indexing;
    await this.bus.close();
    await this.pool.end();
  }
}
