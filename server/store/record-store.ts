// The record storage part of the store port: JSON objects kept in named
// collections under a string id. Everything is async, a transaction changes
// several records atomically, and queries are plain data (equality filters,
// one sort key, a range, limit/offset) that every adapter answers through an
// index its collection declared.

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

/** The query shapes each collection answers through an index (index-declarations.ts). */
export type IndexDeclarations = Readonly<Record<string, readonly IndexDeclaration[]>>;

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
export interface RecordStore {
  /** 'embedded' or 'postgres', reported by /health. */
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
   * The query shapes each collection answers (index-declarations.ts): the
   * store builds its indexes from them. The app declares them once, before
   * serving.
   */
  declareIndexes(declarations: Readonly<Record<string, readonly IndexDeclaration[]>>): void;
  /** Resolves when the store can take work; rejects with StoreUnavailableError, saying why, when it cannot. */
  ping(): Promise<void>;
  /** Flushes what is pending and releases the store's resources and locks. */
  close(): Promise<void>;
}
