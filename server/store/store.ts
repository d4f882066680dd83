// The store every part of the server persists through. Records are JSON
// objects kept in named collections under a string id. The interface is
// shaped so that a PostgreSQL implementation can follow: everything is async,
// a transaction changes several records atomically, queries are plain data
// (equality filters, one sort key, limit/offset) rather than callbacks.

import type { InstanceBus } from './bus.js';

export type OrderType = 'text' | 'number' | 'time';

/** One query shape a collection answers, declared beside its record type. */
export interface IndexDeclaration {
  /** Fields a query's `where` gives values for, all of them. */
  equals: readonly string[];
  /** The field results are ordered by, and the one a range bounds. */
  order?: { field: string; type: OrderType };
  /**
   * Every record's id is the value of the one field of `equals`, a "/",
   * then the rest (a settlement's `terminal/batchNumber`), so the ids' own
   * order is this declaration's: a store whose keys are ordered
   * (PostgreSQL) serves it from them, with no index of its own to write.
   */
  idStartsWithIt?: true;
}

export type Scalar = string | number | boolean | null;

/** A stored record: any JSON object. Values handed out are frozen. */
export type StoredRecord = Readonly<Record<string, unknown>>;

export interface Query {
  /** Keep records whose top-level field equals the given value, for every entry. */
  where?: Readonly<Record<string, Scalar>>;
  /** Keep records whose top-level field lies within the inclusive bounds given. */
  range?: { field: string; min?: string | number; max?: string | number };
  /** Sort by one top-level field; records missing it sort first. Ties by id. */
  orderBy?: { field: string; direction: 'asc' | 'desc' };
  /** At most this many records, after `offset` skipped. */
  limit?: number;
  offset?: number;
}

/**
 * A marker recorded once: `value` under `id` of `collection`, unless a
 * record there is still live (its number field `liveUntil` above `now`).
 * A record past its time is taken over. What one request may do once (a
 * signature accepted, say) is claimed so, by whichever instance.
 */
export interface Claim {
  collection: string;
  id: string;
  value: StoredRecord;
  /** The number field of the marker that says until when it holds. */
  liveUntil: string;
  now: number;
}

/** A record and the record its field `field` names in `linkedCollection`, as getLinked reads them. */
export interface LinkedRead {
  collection: string;
  id: string;
  field: string;
  linkedCollection: string;
}

/** What a write made with a claim was decided on: the record read equal to `record`, and the linked one's `linkedFields` as given. */
export interface ReadBasis {
  record: StoredRecord;
  linkedFields: Readonly<Record<string, unknown>>;
}

/** One write made with a claim: an insert unless the id is taken, or a replacement of the record as it was read. */
export type ClaimedWrite =
  | { kind: 'insert'; collection: string; id: string; value: StoredRecord }
  | { kind: 'replace'; collection: string; id: string; expected: StoredRecord; value: StoredRecord };

/** The records a LinkedRead found, each absent when there is none. */
export interface LinkedRecords<T extends StoredRecord = StoredRecord, L extends StoredRecord = StoredRecord> {
  record?: T;
  linked?: L;
}

/** What claimAndWrite did: written only when the claim was new, the basis still held and (for an insert) nothing was there. */
export interface ClaimedWriteOutcome<T extends StoredRecord = StoredRecord, L extends StoredRecord = StoredRecord> {
  claimed: boolean;
  written: boolean;
  /** The basis no longer held, so nothing was written: the records as they are now. */
  changed?: LinkedRecords<T, L>;
  /** For an insert whose id was taken, the record there. */
  existing?: StoredRecord;
}

export interface Transaction {
  /** Reads see this transaction's own writes. Records read are locked until commit. */
  get<T extends StoredRecord>(collection: string, id: string): Promise<T | undefined>;
  list<T extends StoredRecord>(collection: string, query?: Query): Promise<T[]>;
  /** Creates a record; the commit fails with DuplicateKeyError when the id is taken. */
  insert(collection: string, id: string, value: StoredRecord): void;
  /** Creates or replaces a record. */
  put(collection: string, id: string, value: StoredRecord): void;
  delete(collection: string, id: string): void;
}

/**
 * Contract: `transact` runs `work` isolated from every other transaction
 * (as if one at a time) and commits all its writes atomically; it resolves
 * only once they are durable. When `work` throws, nothing is written. Reads
 * outside a transaction answer only state that is durable. Keep `work` short:
 * do slow things (hashing, network) before it.
 *
 * @example
 *   await store.transact(async (tx) => {
 *     const account = await tx.get<Account>('accounts', id);
 *     tx.put('accounts', id, { ...account, name: 'new' });
 *   });
 */
export interface Store {
  /** 'lowdb' or 'postgres', reported by /health. */
  readonly kind: string;
  get<T extends StoredRecord>(collection: string, id: string): Promise<T | undefined>;
  list<T extends StoredRecord>(collection: string, query?: Query): Promise<T[]>;
  /**
   * The record under `id` and the record of `linkedCollection` whose id is
   * the string in its field `field` (a token and its account, a terminal
   * and its account), in one read: on PostgreSQL one statement instead of two.
   */
  getLinked<T extends StoredRecord, L extends StoredRecord>(
    collection: string,
    id: string,
    field: string,
    linkedCollection: string,
  ): Promise<[T | undefined, L | undefined]>;
  count(collection: string, where?: Query['where']): Promise<number>;
  transact<R>(work: (tx: Transaction) => Promise<R> | R): Promise<R>;
  /**
   * Inserts `value` under `id` unless a record is there, in one atomic step
   * (no transaction around it, so nothing to conflict with): answers
   * undefined when it inserted, else the record that was there. For writes
   * that are "record this once" and nothing else (a settlement).
   */
  insertIfAbsent<T extends StoredRecord>(collection: string, id: string, value: StoredRecord): Promise<T | undefined>;
  /**
   * Replaces the record under `id` with `next` only if it still equals
   * `expected` (as JSON), in one atomic step with no transaction around it;
   * answers whether it did. A read-modify-write of one record (an order's
   * transition): read it, decide, replace it if nobody changed it meanwhile,
   * else read again.
   */
  replaceIf(collection: string, id: string, expected: StoredRecord, next: StoredRecord): Promise<boolean>;
  /**
   * Makes `claim` and reads `read` in one atomic step (PostgreSQL: one
   * statement): answers whether the claim was new and the records as they
   * are now.
   */
  claimAndRead<T extends StoredRecord, L extends StoredRecord>(
    claim: Claim,
    read: LinkedRead,
  ): Promise<{ claimed: boolean } & LinkedRecords<T, L>>;
  /**
   * Makes `claim` and, only if it is new and the records of `read` still
   * match `basis`, `write`, in one atomic step (PostgreSQL: one statement,
   * one commit where the claim and the write would be two). When the basis
   * no longer holds, nothing is written and the records are answered as
   * they are now, for the caller to decide again.
   *
   * A claim made with an insert that is written may be kept with the record
   * written rather than as a record of `claim.collection` (PostgreSQL does:
   * the marker's own row is two of a write's WAL records). It is then seen
   * by claimAndWrite of the same claim and insert, which is how a claim
   * comes again (its id names a request, whose insert names the record),
   * not by claimAndRead.
   *
   * @example
   *   await store.claimAndWrite(
   *     { collection: 'claims', id: 'k1', value: { until: 20 }, liveUntil: 'until', now: 10 },
   *     { collection: 'terminals', id: 'T1', field: 'account_id', linkedCollection: 'accounts' },
   *     { record: terminal, linkedFields: { clock_offset_ms: 0 } },
   *     { kind: 'insert', collection: 'settlements', id: 'T1/B1', value: settlement },
   *   );
   */
  claimAndWrite<T extends StoredRecord, L extends StoredRecord>(
    claim: Claim,
    read: LinkedRead,
    basis: ReadBasis,
    write: ClaimedWrite,
  ): Promise<ClaimedWriteOutcome<T, L>>;
  /** Deletes the records of `collection` whose number field `field` is at most `max`, through its declared index (markers past their time). */
  deleteUpTo(collection: string, field: string, max: number): Promise<void>;
  /**
   * Leases existing records of `collection` to this instance for `ms`, so
   * that instances sharing the store never work on the same one at once:
   * answers the ids among `ids` that no other instance holds (by a live
   * lease, or by a row lock it is taking right now, which is skipped and
   * never waited for). A lease of this instance's own is renewed.
   */
  lease(collection: string, ids: readonly string[], ms: number): Promise<string[]>;
  /** Gives this instance's leases back before they expire. */
  release(collection: string, ids: readonly string[]): Promise<void>;
  /**
   * The query shapes each collection answers (index-declarations.ts): the
   * store builds its indexes from them. The app declares them once, before
   * serving.
   */
  declareIndexes(declarations: Readonly<Record<string, readonly IndexDeclaration[]>>): void;
  /** Resolves when the store can take work; rejects with StoreUnavailableError, saying why, when it cannot. */
  ping(): Promise<void>;
  /** Messages between the instances sharing this store. */
  readonly bus: InstanceBus;
  /** Flushes what is pending and releases the store's resources and locks. */
  close(): Promise<void>;
}
