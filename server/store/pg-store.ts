import { createHash } from 'node:crypto';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { DuplicateKeyError, StoreUnavailableError } from '../errors.js';
import { FaultLog } from '../fault-log.js';
import { silentLogger, type Logger } from '../log.js';
import { PgBus } from './pg-bus.js';
import { asStoreFault, isUnavailable, rethrowAsStoreFault } from './pg-faults.js';
import { alterTableSql, countSql, createTableSql, fieldExpression, ident, selectSql, tableLayout, type TableLayout } from './pg-tables.js';
import { decodeJson, decodeKey, encodeJson, encodeKey } from './pg-text.js';
import type { IndexDeclarations } from './memory-state.js';
import { deepFreeze } from './memory-state.js';
import { runQuery } from './query.js';
import type { Query, Store, StoredRecord, Transaction } from './store.js';

// The PostgreSQL store (DATABASE_URL): the same Store contract as the
// embedded one, on a table per collection (pg-tables.ts). Transactions are
// SERIALIZABLE and retried on serialisation failures, so concurrent
// transactions behave as if run one at a time across every instance.
// Strings go in and out through pg-text.ts, so text jsonb or a text column
// cannot hold is stored all the same; a fault of the database or of the
// connection becomes StoreUnavailableError (503 with Retry-After), and a
// connection that failed is thrown away, never handed out again.

type Migration = { version: number; sql: string } | { version: number; run: (client: pg.PoolClient) => Promise<void> };

const MIGRATIONS: Migration[] = [
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
    // Every list is served by an expression index made from the declarations; the
    // GIN index over every document cost more CPU per write than all of them together.
    sql: 'DROP INDEX IF EXISTS records_data;',
  },
  {
    version: 4,
    // A table per collection (pg-tables.ts): each collection's records move out of the one
    // table, as they are; the typed columns and indexes follow from the declarations.
    run: moveToTables,
  },
];

/** Migration 4: every collection of `records` into a table of its own, then `records` dropped. */
async function moveToTables(client: pg.PoolClient): Promise<void> {
  const { rows } = await client.query<{ collection: string }>('SELECT DISTINCT collection FROM records');
  for (const { collection } of rows) {
    const layout = tableLayout(decodeKey(collection));
    await client.query(createTableSql(layout));
    await client.query(`INSERT INTO ${ident(layout.table)} (id, data) SELECT id, data FROM records WHERE collection = $1`, [collection]);
  }
  await client.query('DROP TABLE records');
}

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
      if ('sql' in migration) await client.query(migration.sql);
      else await migration.run(client);
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

/** The rows a list's statement returns, records frozen. */
async function selectRows<R extends { data: StoredRecord }>(db: Queryable, statement: { text: string; values: unknown[] }): Promise<R[]> {
  const { rows } = await db.query<R>(prepared(statement.text, statement.values)).catch(rethrowAsStoreFault);
  for (const row of rows) deepFreeze(row.data);
  return rows;
}

/** The rows of a statement that selects ids too, as [id, record]. */
async function selectEntries<T extends StoredRecord>(db: Queryable, statement: { text: string; values: unknown[] }): Promise<Array<[string, T]>> {
  return (await selectRows<{ id: string; data: T }>(db, statement)).map((row) => [decodeKey(row.id), row.data]);
}

/** A list on one table: in one statement selecting the records alone when SQL can answer it all, else narrowed there and finished by query.ts. */
async function listOn<T extends StoredRecord>(db: Queryable, layout: TableLayout, query: Query): Promise<T[]> {
  const statement = selectSql(layout, query, { withIds: false });
  if (!statement.complete) return runQuery(await selectEntries<T>(db, statement), query);
  return (await selectRows<{ data: T }>(db, statement)).map((row) => row.data);
}

type Op = { op: 'put' | 'insert'; c: string; id: string; v: StoredRecord } | { op: 'del'; c: string; id: string };

class PgTransaction implements Transaction {
  private readonly overlay = new Map<string, Map<string, StoredRecord | null>>();
  private readonly ops: Op[] = [];

  constructor(
    private readonly client: pg.PoolClient,
    private readonly tables: (collection: string) => Promise<TableLayout>,
  ) {}

  async get<T extends StoredRecord>(collection: string, id: string): Promise<T | undefined> {
    const layer = this.overlay.get(collection);
    if (layer?.has(id)) return (layer.get(id) ?? undefined) as T | undefined;
    const { table } = await this.tables(collection);
    // Locked until commit: a read-modify-write of a record cannot interleave with another.
    const { rows } = await this.client
      .query<{ data: T }>(prepared(`SELECT data FROM ${ident(table)} WHERE id = $1 FOR UPDATE`, [encodeKey(id)]))
      .catch(rethrowAsStoreFault);
    return rows[0] ? deepFreeze(rows[0].data) : undefined;
  }

  async list<T extends StoredRecord>(collection: string, query: Query = {}): Promise<T[]> {
    const layout = await this.tables(collection);
    const layer = this.overlay.get(collection);
    // Nothing written to it yet in this transaction: the database answers the whole list.
    if (!layer || layer.size === 0) return listOn<T>(this.client, layout, query);
    // Else the filters narrow what is read, and this transaction's own writes replace what they changed.
    const { orderBy: _order, limit: _limit, offset: _offset, ...filters } = query;
    const stored = (await selectEntries<T>(this.client, selectSql(layout, filters))).filter(([id]) => !layer.has(id));
    const added = [...layer].filter((entry): entry is [string, T] => entry[1] !== null) as Array<[string, T]>;
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
      const table = ident((await this.tables(op.c)).table);
      const key = encodeKey(op.id);
      if (op.op === 'del') {
        await this.client.query(prepared(`DELETE FROM ${table} WHERE id = $1`, [key])).catch(rethrowAsStoreFault);
        continue;
      }
      try {
        await this.client.query(
          prepared(
            op.op === 'insert'
              ? `INSERT INTO ${table} (id, data) VALUES ($1, $2::jsonb)`
              : `INSERT INTO ${table} (id, data) VALUES ($1, $2::jsonb) ON CONFLICT (id) DO UPDATE SET data = EXCLUDED.data`,
            [key, encoded[index]],
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

/** The tables of the current schema and their columns' types, as the catalog has them. */
async function readSchema(db: Queryable): Promise<Map<string, Map<string, string>>> {
  const { rows } = await db.query<{ table_name: string; column_name: string; data_type: string }>(
    'SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema()',
  );
  const tables = new Map<string, Map<string, string>>();
  for (const row of rows) {
    let columns = tables.get(row.table_name);
    if (!columns) tables.set(row.table_name, (columns = new Map()));
    columns.set(row.column_name, row.data_type);
  }
  return tables;
}

/** The one write a signed request makes with its claim: an insert unless the id is taken, or a replacement of what was read. */
export type SignedWrite =
  | { kind: 'insert'; collection: string; id: string; value: StoredRecord }
  | { kind: 'replace'; collection: string; id: string; expected: StoredRecord; value: StoredRecord };

/** What claimSignatureAndWrite did: written only when the claim is new, nothing changed and (for an insert) nothing was there. */
export interface ClaimedWrite<T, A, R> {
  verdict: 'new' | 'replayed';
  written: boolean;
  /** The terminal or its account's clock is no longer as expected, so nothing was written: both as they are now (absent if gone). */
  changed?: { terminal?: T; account?: A };
  /** For an insert, the record already there. */
  existing?: R;
}

/** The terminal and account a statement read, frozen, each left out when absent. */
function presentFrozen<T, A>(row: { terminal: T | null; account: A | null }): { terminal?: T; account?: A } {
  return { ...(row.terminal ? { terminal: deepFreeze(row.terminal) } : {}), ...(row.account ? { account: deepFreeze(row.account) } : {}) };
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
    } catch (error) {
      await pool.end();
      throw error;
    }
    return new PgStore(pool, options.connectionString, new PgBus(pool, options.connectionString, log), connections, log, schema);
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
    // On a connection of its own, outside the pool: a transaction holding a pooled connection may be what asks.
    const client = new pg.Client({ connectionString: this.connectionString });
    client.on('error', (error) => this.connections.failed(error));
    try {
      await client.connect();
      // One instance at a time, so two never create the same table or column at once.
      await client.query("SELECT pg_advisory_lock(hashtext('svc-pos-sim tables'))");
      await client.query(createTableSql(layout));
      const columns = (await readSchema(client)).get(layout.table) ?? new Map<string, string>();
      for (const statement of alterTableSql(layout, columns)) await client.query(statement);
      return layout;
    } catch (error) {
      throw asStoreFault(error);
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  /**
   * One statement, outside any serializable transaction: the primary key
   * decides, so concurrent writers of other keys never conflict (a
   * serializable "is it there?" read locks the key's whole index page, and
   * sequential keys, such as one terminal's batches, share that page).
   */
  async insertIfAbsent<T extends StoredRecord>(collection: string, id: string, value: StoredRecord): Promise<T | undefined> {
    const table = ident((await this.table(collection)).table);
    const key = encodeKey(id);
    const { rowCount } = await this.pool
      .query(prepared(`INSERT INTO ${table} (id, data) VALUES ($1, $2::jsonb) ON CONFLICT (id) DO NOTHING`, [key, encodeJson(value)]))
      .catch(rethrowAsStoreFault);
    this.connections.succeeded();
    if (rowCount === 1) return undefined;
    // Not inserted: the record there is read in a statement of its own, so its snapshot includes the writer that won.
    return this.readWinner<T>(collection, id);
  }

  /** The record an insert of `id` found there, read in a statement of its own (whose snapshot includes the writer that won). */
  private async readWinner<T extends StoredRecord>(collection: string, id: string): Promise<T> {
    const table = ident((await this.table(collection)).table);
    const { rows } = await this.pool.query<{ data: T }>(prepared(`SELECT data FROM ${table} WHERE id = $1`, [encodeKey(id)])).catch(rethrowAsStoreFault);
    if (!rows[0]) throw new StoreUnavailableError(`${collection} ${id} was there a moment ago and is gone; try again`);
    return deepFreeze(rows[0].data);
  }

  /** One conditional UPDATE: the row changes only if its document still equals `expected` (jsonb equality). */
  async replaceIf(collection: string, id: string, expected: StoredRecord, next: StoredRecord): Promise<boolean> {
    const table = ident((await this.table(collection)).table);
    const { rowCount } = await this.pool
      .query(prepared(`UPDATE ${table} SET data = $3::jsonb WHERE id = $1 AND data = $2::jsonb`, [encodeKey(id), encodeJson(expected), encodeJson(next)]))
      .catch(rethrowAsStoreFault);
    this.connections.succeeded();
    return rowCount === 1;
  }

  /** A number field of a collection's records in SQL: its column, or the same value read from the document. */
  private async numberField(collection: string, field: string): Promise<{ table: string; value: string }> {
    const layout = await this.table(collection);
    const column = layout.columns.get(field);
    const table = ident(layout.table);
    return { table, value: column?.type === 'number' ? `${table}.${ident(column.name)}` : fieldExpression(field, 'number', table) };
  }

  /**
   * POS replay protection in one statement (instead of a serializable
   * transaction of four): records `key` unless a record of it is still
   * fresh; answers whether it was fresh, i.e. a replay. Atomic on its own,
   * so concurrent signers never conflict over it.
   */
  async claimSignature(key: string, expiresAt: number, now: number): Promise<'new' | 'replayed'> {
    const claim = await this.claimStatement(key, expiresAt, now);
    const { rowCount } = await this.pool.query(prepared(claim.text, claim.values)).catch(rethrowAsStoreFault);
    return rowCount === 1 ? 'new' : 'replayed';
  }

  /** The INSERT that records `key` unless a record of it is still fresh (parameters $1 to $3). */
  private async claimStatement(key: string, expiresAt: number, now: number): Promise<{ text: string; values: unknown[] }> {
    const { table, value } = await this.numberField('pos_signatures', 'expires_at');
    return {
      text: `INSERT INTO ${table} (id, data) VALUES ($1, $2::jsonb) ON CONFLICT (id) DO UPDATE SET data = EXCLUDED.data WHERE ${value} <= $3`,
      values: [encodeKey(key), encodeJson({ key, expires_at: expiresAt }), now],
    };
  }

  /**
   * The claim of claimSignature and, in the same statement, the terminal
   * `serial` and its account as they are now: the one round trip a signed
   * POS request needs before its own work once its instance knows the
   * terminal's secret (the guard checks that secret against the one read here).
   */
  async claimSignatureAndRead<T extends StoredRecord, A extends StoredRecord>(
    key: string,
    expiresAt: number,
    now: number,
    serial: string,
  ): Promise<{ verdict: 'new' | 'replayed'; terminal?: T; account?: A }> {
    const claim = await this.claimStatement(key, expiresAt, now);
    const { rows } = await this.pool
      .query<{ claimed: string; terminal: T | null; account: A | null }>(
        prepared(
          `WITH claim AS (${claim.text} RETURNING 1)
           SELECT (SELECT count(*) FROM claim) AS claimed, t.data AS terminal, a.data AS account
             FROM ${await this.terminalWithAccount('$4')}`,
          [...claim.values, encodeKey(serial)],
        ),
      )
      .catch(rethrowAsStoreFault);
    this.connections.succeeded();
    const row = rows[0]!;
    return { verdict: Number(row.claimed) === 1 ? 'new' : 'replayed', ...presentFrozen(row) };
  }

  /**
   * A signed request's claim and its write as one statement: claims `key`
   * and, only if the claim is new and the terminal and its account's clock
   * are still what the record was built from (`expected`), makes the write:
   * inserts the record unless one is there, or replaces it if it is still
   * `write.expected` (jsonb equality). One commit where the claim and the
   * write were two. When the terminal or the account changed, nothing is
   * written and they are read as they are now, for the caller to decide;
   * when an insert found a record there, it is read too (by another
   * statement if it was written after this one began).
   */
  async claimSignatureAndWrite<T extends StoredRecord, A extends StoredRecord, R extends StoredRecord>(
    claim: { key: string; expiresAt: number; now: number; serial: string },
    expected: { terminal: T; clockOffsetMs: number },
    write: SignedWrite,
  ): Promise<ClaimedWrite<T, A, R>> {
    const claimed = await this.claimStatement(claim.key, claim.expiresAt, claim.now);
    const table = ident((await this.table(write.collection)).table);
    const allowed = 'EXISTS (SELECT 1 FROM claim) AND (SELECT yes FROM current)';
    const writing =
      write.kind === 'insert'
        ? `INSERT INTO ${table} (id, data) SELECT $7, $8::jsonb WHERE ${allowed} ON CONFLICT (id) DO NOTHING RETURNING 1`
        : `UPDATE ${table} SET data = $8::jsonb WHERE id = $7 AND data = $9::jsonb AND ${allowed} RETURNING 1`;
    // After an insert that did not happen, the record there (as this statement's snapshot has it).
    const existing =
      write.kind === 'insert'
        ? `CASE WHEN c.yes AND (SELECT count(*) FROM claim) = 1 AND (SELECT count(*) FROM written) = 0 THEN (SELECT data FROM ${table} WHERE id = $7) END`
        : 'NULL::jsonb';
    const { rows } = await this.pool
      .query<{ claimed: string; current: boolean; written: string; terminal: T | null; account: A | null; existing: R | null }>(
        prepared(
          `WITH claim AS (${claimed.text} RETURNING 1),
                now_known AS (SELECT t.data AS terminal, a.data AS account FROM ${await this.terminalWithAccount('$4')}),
                current AS (SELECT EXISTS (SELECT 1 FROM now_known WHERE terminal = $5::jsonb AND account->'clock_offset_ms' = $6::jsonb) AS yes),
                written AS (${writing})
           SELECT (SELECT count(*) FROM claim) AS claimed, c.yes AS current, (SELECT count(*) FROM written) AS written,
                  CASE WHEN NOT c.yes THEN k.terminal END AS terminal, CASE WHEN NOT c.yes THEN k.account END AS account,
                  ${existing} AS existing
             FROM current c, now_known k`,
          [
            ...claimed.values,
            encodeKey(claim.serial),
            encodeJson(expected.terminal),
            JSON.stringify(expected.clockOffsetMs),
            encodeKey(write.id),
            encodeJson(write.value),
            ...(write.kind === 'replace' ? [encodeJson(write.expected)] : []),
          ],
        ),
      )
      .catch(rethrowAsStoreFault);
    this.connections.succeeded();
    const row = rows[0]!;
    const verdict = Number(row.claimed) === 1 ? 'new' : 'replayed';
    if (!row.current) return { verdict, written: false, changed: presentFrozen(row) };
    const written = Number(row.written) === 1;
    if (verdict === 'replayed' || written || write.kind === 'replace') return { verdict, written };
    if (row.existing) return { verdict, written, existing: deepFreeze(row.existing) };
    // Written by another statement after this one's snapshot.
    return { verdict, written, existing: await this.readWinner<R>(write.collection, write.id) };
  }

  /** One row (t, a): the terminal with id `serialParam` and its account, each null when absent. */
  private async terminalWithAccount(serialParam: string): Promise<string> {
    const terminals = ident((await this.table('terminals')).table);
    const accounts = ident((await this.table('accounts')).table);
    return `(SELECT 1) AS one LEFT JOIN ${terminals} t ON t.id = ${serialParam} LEFT JOIN ${accounts} a ON a.id = t.data->>'account_id'`;
  }

  /** Deletes the accepted signatures that can no longer be replayed, in one statement on their expiry index. */
  async sweepSignatures(now: number): Promise<void> {
    const { table, value } = await this.numberField('pos_signatures', 'expires_at');
    await this.pool.query(prepared(`DELETE FROM ${table} WHERE ${value} <= $1`, [now])).catch(rethrowAsStoreFault);
  }

  /** Resolves once the declared indexes exist (tests and benches wait for it). */
  indexesReady(): Promise<void> {
    return this.indexing;
  }

  private async ensureIndexes(): Promise<void> {
    const layouts = await Promise.all(Object.keys(this.declared).map(this.table));
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
        const ours = (await client.query<{ table: string; name: string; valid: boolean }>(
          `SELECT t.relname AS table, c.relname AS name, i.indisvalid AS valid
             FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid
            WHERE t.relnamespace = current_schema()::regnamespace AND c.relname LIKE '%\\_ix\\_%'`,
        )).rows;
        for (const layout of layouts) {
          const existing = ours.filter((index) => index.table === layout.table);
          // An index whose concurrent build was cut off is left invalid: made again.
          for (const index of existing.filter((each) => !each.valid)) await client.query(`DROP INDEX CONCURRENTLY IF EXISTS ${ident(index.name)}`);
          const valid = new Set(existing.filter((each) => each.valid).map((each) => each.name));
          for (const index of layout.indexes) if (!valid.has(index.name)) await client.query(index.sql);
          // An index of a declaration that changed or went: not needed any more.
          for (const name of valid) if (!layout.indexes.some((index) => index.name === name)) await client.query(`DROP INDEX CONCURRENTLY IF EXISTS ${ident(name)}`);
        }
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
    const table = ident((await this.table(collection)).table);
    // Rows another instance is leasing at this instant are skipped, not waited for;
    // a lease row is taken over only once expired (on the database's clock).
    const { rows } = await this.pool
      .query<{ id: string }>(
        prepared(
          `WITH free AS (
             SELECT id FROM ${table} WHERE id = ANY($2::text[]) FOR UPDATE SKIP LOCKED
           )
           INSERT INTO leases (collection, id, owner, expires_at)
           SELECT $1, id, $3, clock_timestamp() + make_interval(secs => $4::double precision / 1000) FROM free
           ON CONFLICT (collection, id) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
             WHERE leases.expires_at <= clock_timestamp() OR leases.owner = EXCLUDED.owner
           RETURNING id`,
          [encodeKey(collection), ids.map(encodeKey), this.instanceId, ms],
        ),
      )
      .catch(rethrowAsStoreFault);
    return rows.map((row) => decodeKey(row.id));
  }

  async release(collection: string, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.pool
      .query(prepared('DELETE FROM leases WHERE collection = $1 AND id = ANY($2::text[]) AND owner = $3', [encodeKey(collection), ids.map(encodeKey), this.instanceId]))
      .catch(rethrowAsStoreFault);
  }

  async get<T extends StoredRecord>(collection: string, id: string): Promise<T | undefined> {
    const table = ident((await this.table(collection)).table);
    const { rows } = await this.pool.query<{ data: T }>(prepared(`SELECT data FROM ${table} WHERE id = $1`, [encodeKey(id)])).catch(rethrowAsStoreFault);
    return rows[0] ? deepFreeze(rows[0].data) : undefined;
  }

  async getLinked<T extends StoredRecord, L extends StoredRecord>(collection: string, id: string, field: string, linkedCollection: string): Promise<[T | undefined, L | undefined]> {
    const table = ident((await this.table(collection)).table);
    const linked = ident((await this.table(linkedCollection)).table);
    // The field's text as jsonb gives it is the linked id as encodeKey writes it: pg-text.ts escapes both alike.
    const { rows } = await this.pool
      .query<{ record: T; linked: L | null }>(
        prepared(`SELECT r.data AS record, l.data AS linked FROM ${table} r LEFT JOIN ${linked} l ON l.id = r.data->>$2 WHERE r.id = $1`, [encodeKey(id), field]),
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
    const { rows } = await this.pool.query<{ n: string }>(prepared(statement.text, statement.values)).catch(rethrowAsStoreFault);
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
        const tx = new PgTransaction(client, this.table);
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
