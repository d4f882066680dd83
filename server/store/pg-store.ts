import { createHash } from 'node:crypto';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { DuplicateKeyError, StoreUnavailableError } from '../errors.js';
import { FaultLog } from '../fault-log.js';
import { silentLogger, type Logger } from '../log.js';
import { PgBus } from './pg-bus.js';
import { asStoreFault, isUnavailable, rethrowAsStoreFault } from './pg-faults.js';
import { indexDefinition, selectServed } from './pg-query.js';
import { decodeJson, decodeKey, encodeJson, encodeKey } from './pg-text.js';
import { bestDeclaration } from './record-index.js';
import type { IndexDeclarations } from './memory-state.js';
import { deepFreeze } from './memory-state.js';
import { runQuery } from './query.js';
import type { Query, Store, StoredRecord, Transaction } from './store.js';

// The PostgreSQL store (DATABASE_URL): the same Store contract as the
// embedded one, on one table of JSON records. Transactions are
// SERIALIZABLE and retried on serialisation failures, so concurrent
// transactions behave as if run one at a time across every instance.
// Strings go in and out through pg-text.ts, so text jsonb or a text column
// cannot hold is stored all the same; a fault of the database or of the
// connection becomes StoreUnavailableError (503 with Retry-After), and a
// connection that failed is thrown away, never handed out again.

const MIGRATIONS: Array<{ version: number; sql: string }> = [
  {
    version: 1,
    sql: `CREATE TABLE records (
            collection text NOT NULL,
            id text NOT NULL,
            data jsonb NOT NULL,
            PRIMARY KEY (collection, id)
          );
          CREATE INDEX records_data ON records USING gin (data jsonb_path_ops);`,
  },
  {
    version: 2,
    // Leases of records to instances (the webhook outbox), and bus messages too large for NOTIFY.
    sql: `CREATE TABLE leases (
            collection text NOT NULL,
            id text NOT NULL,
            owner text NOT NULL,
            expires_at timestamptz NOT NULL,
            PRIMARY KEY (collection, id)
          );
          CREATE TABLE bus_spill (
            id text PRIMARY KEY,
            payload text NOT NULL,
            created_at timestamptz NOT NULL DEFAULT now()
          );`,
  },
  {
    version: 3,
    // Every list is served by an expression index made from the declarations (pg-query.ts); the
    // GIN index over every document cost more CPU per write than all of them together.
    sql: 'DROP INDEX IF EXISTS records_data;',
  },
];

/** Runs the migrations not yet applied, once, whatever the number of instances starting together. */
export async function migrate(pool: pg.Pool): Promise<number[]> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query("SELECT pg_advisory_xact_lock(hashtext('svc-pos-sim migrations'))");
    await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations');
    const applied = new Set(rows.map((row) => row.version));
    const ran: number[] = [];
    for (const migration of MIGRATIONS) {
      if (applied.has(migration.version)) continue;
      await client.query(migration.sql);
      await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [migration.version]);
      ran.push(migration.version);
    }
    await client.query('COMMIT');
    return ran;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/**
 * A statement prepared once per connection, by a name derived from its text:
 * PostgreSQL parses it once and, after a few runs, keeps a generic plan,
 * instead of parsing and planning every time against a table with dozens of
 * partial indexes (planning was most of its CPU per request).
 */
function prepared(text: string, values: unknown[]): pg.QueryConfig {
  let name = preparedNames.get(text);
  if (!name) preparedNames.set(text, (name = `s${createHash('sha1').update(text).digest('hex').slice(0, 20)}`));
  return { name, text, values };
}
const preparedNames = new Map<string, string>();

type Queryable = Pick<pg.PoolClient, 'query'>;

/** Rows of a collection matching `where` (containment in SQL); range, order and paging as in memory. */
async function select<T extends StoredRecord>(db: Queryable, collection: string, query: Query = {}, lock = false): Promise<Array<[string, T]>> {
  const where = query.where && Object.keys(query.where).length > 0 ? query.where : null;
  const { rows } = await db
    .query<{ id: string; data: T }>(
      `SELECT id, data FROM records WHERE collection = $1${where ? ' AND data @> $2::jsonb' : ''}${lock ? ' FOR UPDATE' : ''}`,
      where ? [encodeKey(collection), encodeJson(where)] : [encodeKey(collection)],
    )
    .catch(rethrowAsStoreFault);
  return rows.map((row) => [decodeKey(row.id), deepFreeze(row.data)]);
}

type Op = { op: 'put' | 'insert'; c: string; id: string; v: StoredRecord } | { op: 'del'; c: string; id: string };

class PgTransaction implements Transaction {
  private readonly overlay = new Map<string, Map<string, StoredRecord | null>>();
  private readonly ops: Op[] = [];

  constructor(private readonly client: pg.PoolClient) {}

  async get<T extends StoredRecord>(collection: string, id: string): Promise<T | undefined> {
    const layer = this.overlay.get(collection);
    if (layer?.has(id)) return (layer.get(id) ?? undefined) as T | undefined;
    // Locked until commit: a read-modify-write of a record cannot interleave with another.
    const { rows } = await this.client
      .query<{ data: T }>(prepared('SELECT data FROM records WHERE collection = $1 AND id = $2 FOR UPDATE', [encodeKey(collection), encodeKey(id)]))
      .catch(rethrowAsStoreFault);
    return rows[0] ? deepFreeze(rows[0].data) : undefined;
  }

  async list<T extends StoredRecord>(collection: string, query: Query = {}): Promise<T[]> {
    const layer = this.overlay.get(collection);
    const stored = (await select<T>(this.client, collection, { ...(query.where ? { where: query.where } : {}) })).filter(([id]) => !layer?.has(id));
    const added = [...(layer ?? new Map())].filter((entry): entry is [string, T] => entry[1] !== null) as Array<[string, T]>;
    return runQuery([...stored, ...added], query);
  }

  insert(collection: string, id: string, value: StoredRecord): void {
    this.write({ op: 'insert', c: collection, id, v: value });
  }

  put(collection: string, id: string, value: StoredRecord): void {
    this.write({ op: 'put', c: collection, id, v: value });
  }

  delete(collection: string, id: string): void {
    this.write({ op: 'del', c: collection, id });
  }

  /** Writes the buffered operations in order; an insert of a taken id fails with DuplicateKeyError. */
  async flush(): Promise<void> {
    // Serialise everything first: a value that cannot be stored fails before any write.
    const encoded = this.ops.map((op) => (op.op === 'del' ? null : encodeJson(op.v)));
    for (const [index, op] of this.ops.entries()) {
      const key = [encodeKey(op.c), encodeKey(op.id)];
      if (op.op === 'del') {
        await this.client.query(prepared('DELETE FROM records WHERE collection = $1 AND id = $2', key)).catch(rethrowAsStoreFault);
        continue;
      }
      try {
        await this.client.query(
          prepared(
            op.op === 'insert'
              ? 'INSERT INTO records (collection, id, data) VALUES ($1, $2, $3::jsonb)'
              : 'INSERT INTO records (collection, id, data) VALUES ($1, $2, $3::jsonb) ON CONFLICT (collection, id) DO UPDATE SET data = EXCLUDED.data',
            [...key, encoded[index]],
          ),
        );
      } catch (error) {
        if ((error as { code?: string }).code === '23505') throw new DuplicateKeyError(op.c, op.id);
        throw asStoreFault(error);
      }
    }
  }

  private write(op: Op): void {
    let layer = this.overlay.get(op.c);
    if (!layer) this.overlay.set(op.c, (layer = new Map()));
    layer.set(op.id, op.op === 'del' ? null : op.v);
    this.ops.push(op);
  }
}

const RETRYABLE = new Set(['40001', '40P01']); // serialization failure, deadlock
/**
 * Serialisable transactions on a small table conflict often (PostgreSQL
 * locks index pages, not only rows, and a young table fits in a few pages),
 * so a conflicting transaction is retried many times, backing off
 * exponentially with jitter: about 6 s in all before it gives up.
 */
const MAX_ATTEMPTS = 60;
const backoffMs = (attempt: number) => Math.random() * Math.min(200, 2 ** Math.min(attempt, 8));

export class PgStore implements Store {
  readonly kind = 'postgres';
  /** Who holds this instance's leases: one id per opened store. */
  readonly instanceId = randomUUID();

  private constructor(
    private readonly pool: pg.Pool,
    readonly bus: PgBus,
    private readonly connections: FaultLog,
    private readonly log: Logger,
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
    try {
      await migrate(pool);
    } catch (error) {
      await pool.end();
      throw error;
    }
    return new PgStore(pool, new PgBus(pool, options.connectionString, log), connections, log);
  }

  private declared: IndexDeclarations = {};
  private indexing: Promise<void> = Promise.resolve();

  /**
   * Lists a declared index serves run as one SQL statement (pg-query.ts),
   * on expression indexes made from the declarations: created here, in the
   * background and concurrently (writes go on), by one instance at a time.
   */
  declareIndexes(declarations: IndexDeclarations): void {
    this.declared = declarations;
    this.indexing = this.ensureIndexes().catch((error: Error) => {
      // Lists still work meanwhile (by scan); the indexes are made once the database lets us.
      this.log.warn('could not create the declared indexes yet; trying again in 30 s', { error: error.message });
      const retry = setTimeout(() => this.closing || this.declareIndexes(declarations), 30_000);
      retry.unref();
    });
  }

  private closing = false;

  /**
   * One statement, outside any serializable transaction: the primary key
   * decides, so concurrent writers of other keys never conflict (a
   * serializable "is it there?" read locks the key's whole index page, and
   * sequential keys, such as one terminal's batches, share that page).
   */
  async insertIfAbsent<T extends StoredRecord>(collection: string, id: string, value: StoredRecord): Promise<T | undefined> {
    const key = [encodeKey(collection), encodeKey(id)];
    const { rowCount } = await this.pool
      .query(prepared('INSERT INTO records (collection, id, data) VALUES ($1, $2, $3::jsonb) ON CONFLICT (collection, id) DO NOTHING', [...key, encodeJson(value)]))
      .catch(rethrowAsStoreFault);
    this.connections.succeeded();
    if (rowCount === 1) return undefined;
    // Not inserted: the record there is read in a statement of its own, so its snapshot includes the writer that won.
    const { rows } = await this.pool.query<{ data: T }>(prepared('SELECT data FROM records WHERE collection = $1 AND id = $2', key)).catch(rethrowAsStoreFault);
    if (!rows[0]) throw new StoreUnavailableError(`${collection} ${id} was there a moment ago and is gone; try again`);
    return deepFreeze(rows[0].data);
  }

  /**
   * POS replay protection in one statement (instead of a serializable
   * transaction of four): records `key` unless a record of it is still
   * fresh; answers whether it was fresh, i.e. a replay. Atomic on its own,
   * so concurrent signers never conflict over it.
   */
  async claimSignature(key: string, expiresAt: number, now: number): Promise<'new' | 'replayed'> {
    const { rowCount } = await this.pool
      .query(
        prepared(
        `INSERT INTO records (collection, id, data) VALUES ('pos_signatures', $1, $2::jsonb)
         ON CONFLICT (collection, id) DO UPDATE SET data = EXCLUDED.data
           WHERE (records.data->>'expires_at')::numeric <= $3`,
        [encodeKey(key), encodeJson({ key, expires_at: expiresAt }), now],
        ),
      )
      .catch(rethrowAsStoreFault);
    return rowCount === 1 ? 'new' : 'replayed';
  }

  /** Deletes the accepted signatures that can no longer be replayed, in one statement on their expiry index. */
  async sweepSignatures(now: number): Promise<void> {
    await this.pool
      .query(`DELETE FROM records WHERE collection = 'pos_signatures' AND (CASE WHEN jsonb_typeof(data->'expires_at') = 'number' THEN (data->>'expires_at')::numeric END) <= $1`, [now])
      .catch(rethrowAsStoreFault);
  }

  /** Resolves once the declared indexes exist (tests and benches wait for it). */
  indexesReady(): Promise<void> {
    return this.indexing;
  }

  private async ensureIndexes(): Promise<void> {
    const wanted = Object.entries(this.declared).flatMap(([collection, declarations]) => declarations.map((declaration) => indexDefinition(collection, declaration)));
    const client = await this.pool.connect();
    // A connection the server drops while an index is being made emits 'error': handled, and the client thrown away.
    let lost: Error | undefined;
    const onError = (error: Error) => (lost = error);
    client.on('error', onError);
    try {
      // Not waiting for the lock: an instance that holds it is creating the same indexes.
      const { rows } = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock(hashtext('svc-pos-sim declared indexes')) AS locked");
      if (!rows[0]?.locked) return;
      try {
        // An index whose concurrent build was cut off is left invalid: made again.
        const invalid = (await client.query<{ name: string }>("SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE NOT i.indisvalid AND c.relname LIKE 'records\\_ix\\_%'")).rows;
        for (const { name } of invalid) await client.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
        const existing = new Set((await client.query<{ indexname: string }>("SELECT indexname FROM pg_indexes WHERE tablename = 'records' AND indexname LIKE 'records\\_ix\\_%'")).rows.map((row) => row.indexname));
        for (const index of wanted) if (!existing.has(index.name)) await client.query(index.sql);
        // An index of a declaration that changed or went: not needed any more.
        for (const name of existing) if (!wanted.some((index) => index.name === name)) await client.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
      } finally {
        await client.query("SELECT pg_advisory_unlock(hashtext('svc-pos-sim declared indexes'))").catch(() => undefined);
      }
    } finally {
      // The listener stays: a dropped connection can still report after its last query failed. (This
      // runs once per start; a client of the pool that keeps one more listener costs nothing.)
      client.release(lost);
    }
  }

  /** Resolves when the database answers; rejects with StoreUnavailableError otherwise. */
  async ping(): Promise<void> {
    await this.pool.query('SELECT 1').catch(rethrowAsStoreFault);
    this.connections.succeeded();
  }

  async lease(collection: string, ids: readonly string[], ms: number): Promise<string[]> {
    if (ids.length === 0) return [];
    // Rows another instance is leasing at this instant are skipped, not waited for;
    // a lease row is taken over only once expired (on the database's clock).
    const { rows } = await this.pool
      .query<{ id: string }>(
      `WITH free AS (
         SELECT id FROM records WHERE collection = $1 AND id = ANY($2::text[]) FOR UPDATE SKIP LOCKED
       )
       INSERT INTO leases (collection, id, owner, expires_at)
       SELECT $1, id, $3, clock_timestamp() + make_interval(secs => $4::double precision / 1000) FROM free
       ON CONFLICT (collection, id) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
         WHERE leases.expires_at <= clock_timestamp() OR leases.owner = EXCLUDED.owner
       RETURNING id`,
      [encodeKey(collection), ids.map(encodeKey), this.instanceId, ms],
      )
      .catch(rethrowAsStoreFault);
    return rows.map((row) => decodeKey(row.id));
  }

  async release(collection: string, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.pool
      .query('DELETE FROM leases WHERE collection = $1 AND id = ANY($2::text[]) AND owner = $3', [encodeKey(collection), ids.map(encodeKey), this.instanceId])
      .catch(rethrowAsStoreFault);
  }

  async get<T extends StoredRecord>(collection: string, id: string): Promise<T | undefined> {
    const { rows } = await this.pool
      .query<{ data: T }>(prepared('SELECT data FROM records WHERE collection = $1 AND id = $2', [encodeKey(collection), encodeKey(id)]))
      .catch(rethrowAsStoreFault);
    return rows[0] ? deepFreeze(rows[0].data) : undefined;
  }

  async list<T extends StoredRecord>(collection: string, query: Query = {}): Promise<T[]> {
    const declaration = bestDeclaration(this.declared[collection] ?? [], query);
    if (!declaration) return runQuery(await select<T>(this.pool, collection, query), query);
    const served = selectServed(collection, query, declaration);
    const { rows } = await this.pool.query<{ data: T }>(prepared(served.text, served.values)).catch(rethrowAsStoreFault);
    return rows.map((row) => deepFreeze(row.data));
  }

  async count(collection: string, where?: Query['where']): Promise<number> {
    const filtered = where && Object.keys(where).length > 0;
    const { rows } = await this.pool
      .query<{ n: string }>(`SELECT count(*) AS n FROM records WHERE collection = $1${filtered ? ' AND data @> $2::jsonb' : ''}`, filtered ? [encodeKey(collection), encodeJson(where)] : [encodeKey(collection)])
      .catch(rethrowAsStoreFault);
    return Number(rows[0]!.n);
  }

  async transact<R>(work: (tx: Transaction) => Promise<R> | R): Promise<R> {
    for (let attempt = 1; ; attempt += 1) {
      const client = await this.pool.connect().catch(rethrowAsStoreFault);
      // While held, a connection the server drops emits 'error' on the client: without a listener the process would exit.
      let lost: Error | undefined;
      const onError = (error: Error) => {
        lost = error;
        this.connections.failed(error);
      };
      client.on('error', onError);
      try {
        await client.query('BEGIN ISOLATION LEVEL SERIALIZABLE').catch(rethrowAsStoreFault);
        const tx = new PgTransaction(client);
        const result = await work(tx);
        await tx.flush();
        // A COMMIT cut off by a lost connection leaves its outcome unknown: the 503 says to try again, as for any write.
        await client.query('COMMIT').catch(rethrowAsStoreFault);
        this.connections.succeeded();
        return result;
      } catch (error) {
        if (isUnavailable(error)) lost ??= error as Error;
        else await client.query('ROLLBACK').catch(() => undefined);
        const code = (error as { code?: string }).code;
        if (code && RETRYABLE.has(code) && attempt < MAX_ATTEMPTS) {
          await new Promise((resolve) => setTimeout(resolve, backoffMs(attempt)));
          continue;
        }
        // Still conflicting after every retry: nothing was written; the client may try again (503, not 500).
        if (code && RETRYABLE.has(code)) throw new StoreUnavailableError(`too many concurrent conflicting writes (${(error as Error).message}); nothing was written, try again`);
        throw asStoreFault(error);
      } finally {
        client.removeListener('error', onError);
        // A connection that failed is destroyed, never handed to the next transaction.
        client.release(lost);
      }
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.indexing;
    await this.bus.close();
    await this.pool.end();
  }
}

/** jsonb and json columns are parsed restoring what pg-text.ts escaped; other types as pg parses them. */
function typeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
  if (oid === pg.types.builtins.JSONB || oid === pg.types.builtins.JSON) return decodeJson;
  return pg.types.getTypeParser(oid, format);
}
