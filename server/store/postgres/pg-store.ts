import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { FaultLog } from '../../fault-log.js';
import { silentLogger, type Logger } from '../../log.js';
import type { IndexDeclarations } from '../store.js';
import { deepFreeze } from '../frozen.js';
import { PgBus } from './pg-bus.js';
import { deleteUpToSql } from './pg-claims.js';
import { rethrowAsStoreFault } from './pg-faults.js';
import { ClaimSteps, readWinner } from './pg-claim-steps.js';
import { TableLayouts } from './pg-layouts.js';
import { leaseSql, releaseSql } from './pg-leases.js';
import { migrate } from './pg-migrations.js';
import { openPool } from './pg-open.js';
import { listOn, prepared } from './pg-statements.js';
import { countSql, ident, type TableLayout } from './pg-tables.js';
import { decodeKey, encodeJson, encodeKey } from './pg-text.js';
import { runSerializable } from './pg-transaction.js';
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

export class PgStore implements Store {
  readonly kind = 'postgres';
  /** Who holds this instance's leases: one id per opened store. */
  readonly instanceId = randomUUID();

  private constructor(
    private readonly pool: pg.Pool,
    readonly bus: PgBus,
    private readonly connections: FaultLog,
    private readonly layouts: TableLayouts,
  ) {
    this.claims = new ClaimSteps(pool, (collection) => this.table(collection), connections);
  }

  private readonly claims: ClaimSteps;

  static async open(options: { connectionString: string; max?: number; log?: Logger }): Promise<PgStore> {
    const log = options.log ?? silentLogger;
    const { pool, connections, schema } = await openPool(options.connectionString, options.max ?? 10, log);
    return new PgStore(
      pool,
      new PgBus(pool, options.connectionString, log),
      connections,
      new TableLayouts(pool, options.connectionString, connections, log, schema),
    );
  }

  /** The tables' layouts and the declared indexes: pg-layouts.ts. */
  declareIndexes(declarations: IndexDeclarations): void {
    this.layouts.declare(declarations);
  }

  private table = (collection: string): Promise<TableLayout> => this.layouts.of(collection);

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
    return readWinner<T>(this.pool, this.table, collection, id);
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
    return this.claims.claimAndRead(claim, read);
  }

  claimAndWrite<T extends StoredRecord, L extends StoredRecord>(
    claim: Claim,
    read: LinkedRead,
    basis: ReadBasis,
    write: ClaimedWrite,
  ): Promise<ClaimedWriteOutcome<T, L>> {
    return this.claims.claimAndWrite(claim, read, basis, write);
  }

  async deleteUpTo(collection: string, field: string, max: number): Promise<void> {
    const statement = deleteUpToSql(await this.table(collection), field, max);
    await this.pool.query(prepared(statement.text, statement.values)).catch(rethrowAsStoreFault);
  }

  /** Resolves once the declared indexes exist (tests and benches wait for it). */
  indexesReady(): Promise<void> {
    return this.layouts.ready();
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
    await this.layouts.close();
    await this.bus.close();
    await this.pool.end();
  }
}
