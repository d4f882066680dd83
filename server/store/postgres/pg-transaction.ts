import type pg from 'pg';
import { appError } from '../../errors.js';
import type { FaultLog } from '../../fault-log.js';
import { deepFreeze } from '../frozen.js';
import { asStoreFault, isUnavailable, rethrowAsStoreFault } from './pg-faults.js';
import { listOn, prepared, selectEntries } from './pg-statements.js';
import { ident, selectSql, type TableLayout } from './pg-tables.js';
import { encodeJson, encodeKey } from './pg-text.js';
import { runQuery } from '../query.js';
import type { Query, StoredRecord, Transaction } from '../store.js';

// A transaction of the PostgreSQL store: SERIALIZABLE, so concurrent
// transactions behave as if run one at a time across every instance; reads
// lock what they read, writes are buffered (a transaction reads its own)
// and flushed before the commit.

type Op =
  | { op: 'put' | 'insert'; collection: string; id: string; value: StoredRecord }
  | { op: 'del'; collection: string; id: string };

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
    this.write({ op: 'insert', collection, id, value });
  }

  put(collection: string, id: string, value: StoredRecord): void {
    this.write({ op: 'put', collection, id, value });
  }

  delete(collection: string, id: string): void {
    this.write({ op: 'del', collection, id });
  }

  /** Writes the buffered operations in order; an insert of a taken id fails with DuplicateKeyError. */
  async flush(): Promise<void> {
    // Serialise everything first: a value that cannot be stored fails before any write.
    const encoded = this.ops.map((op) => (op.op === 'del' ? null : encodeJson(op.value)));
    for (const [index, op] of this.ops.entries()) {
      const table = ident((await this.tables(op.collection)).table);
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
        if ((error as { code?: string }).code === '23505') throw appError('DUPLICATE_KEY', op.collection, op.id);
        throw asStoreFault(error);
      }
    }
  }

  private write(op: Op): void {
    let layer = this.overlay.get(op.collection);
    if (!layer) this.overlay.set(op.collection, (layer = new Map()));
    layer.set(op.id, op.op === 'del' ? null : op.value);
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

/**
 * Runs `work` in a SERIALIZABLE transaction on a connection of its own,
 * retried on serialisation failures and deadlocks, committed once its
 * buffered writes are flushed. A fault of the database or the connection
 * becomes StoreUnavailableError, and the connection that failed is
 * destroyed, never handed to the next transaction.
 */
export async function runSerializable<R>(
  pool: pg.Pool,
  tables: (collection: string) => Promise<TableLayout>,
  connections: FaultLog,
  work: (tx: Transaction) => Promise<R> | R,
): Promise<R> {
  for (let attempt = 1; ; attempt += 1) {
    const client = await pool.connect().catch(rethrowAsStoreFault);
    // While held, a connection the server drops emits 'error' on the client: without a listener the process would exit.
    let lost: Error | undefined;
    const onError = (error: Error) => {
      lost = error;
      connections.failed(error);
    };
    client.on('error', onError);
    try {
      await client.query('BEGIN ISOLATION LEVEL SERIALIZABLE').catch(rethrowAsStoreFault);
      const tx = new PgTransaction(client, tables);
      const result = await work(tx);
      await tx.flush();
      // A COMMIT cut off by a lost connection leaves its outcome unknown: the 503 says to try again, as for any write.
      await client.query('COMMIT').catch(rethrowAsStoreFault);
      connections.succeeded();
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
      if (code && RETRYABLE.has(code))
        throw appError(
          'STORE_UNAVAILABLE',
          `too many concurrent conflicting writes (${(error as Error).message}); nothing was written, try again`,
        );
      throw asStoreFault(error);
    } finally {
      client.removeListener('error', onError);
      // A connection that failed is destroyed, never handed to the next transaction.
      client.release(lost);
    }
  }
}
