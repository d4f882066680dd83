import type { InstanceBus } from '../store/coordination.js';
import type {
  Claim,
  ClaimedWrite,
  ClaimedWriteOutcome,
  IndexDeclaration,
  LinkedRead,
  LinkedRecords,
  Query,
  ReadBasis,
  Store,
  StoredRecord,
  Transaction,
} from '../store/store.js';

/**
 * A Store that hands every call to another: the base of a store that
 * changes one thing about it (a test's store that watches or fails one call), so
 * that the rest of the contract needs no copy.
 */
export abstract class StoreDecorator implements Store {
  constructor(protected readonly inner: Store) {}

  get kind(): string {
    return this.inner.kind;
  }

  get bus(): InstanceBus {
    return this.inner.bus;
  }

  get<T extends StoredRecord>(collection: string, id: string): Promise<T | undefined> {
    return this.inner.get<T>(collection, id);
  }

  list<T extends StoredRecord>(collection: string, query?: Query): Promise<T[]> {
    return this.inner.list<T>(collection, query);
  }

  getLinked<T extends StoredRecord, L extends StoredRecord>(
    collection: string,
    id: string,
    field: string,
    linkedCollection: string,
  ): Promise<[T | undefined, L | undefined]> {
    return this.inner.getLinked<T, L>(collection, id, field, linkedCollection);
  }

  count(collection: string, where?: Query['where']): Promise<number> {
    return this.inner.count(collection, where);
  }

  transact<R>(work: (tx: Transaction) => Promise<R> | R): Promise<R> {
    return this.inner.transact(work);
  }

  insertIfAbsent<T extends StoredRecord>(collection: string, id: string, value: StoredRecord): Promise<T | undefined> {
    return this.inner.insertIfAbsent<T>(collection, id, value);
  }

  replaceIf(collection: string, id: string, expected: StoredRecord, next: StoredRecord): Promise<boolean> {
    return this.inner.replaceIf(collection, id, expected, next);
  }

  claimAndRead<T extends StoredRecord, L extends StoredRecord>(
    claim: Claim,
    read: LinkedRead,
  ): Promise<{ claimed: boolean } & LinkedRecords<T, L>> {
    return this.inner.claimAndRead<T, L>(claim, read);
  }

  claimAndWrite<T extends StoredRecord, L extends StoredRecord>(
    claim: Claim,
    read: LinkedRead,
    basis: ReadBasis,
    write: ClaimedWrite,
  ): Promise<ClaimedWriteOutcome<T, L>> {
    return this.inner.claimAndWrite<T, L>(claim, read, basis, write);
  }

  deleteUpTo(collection: string, field: string, max: number): Promise<void> {
    return this.inner.deleteUpTo(collection, field, max);
  }

  lease(collection: string, ids: readonly string[], ms: number): Promise<string[]> {
    return this.inner.lease(collection, ids, ms);
  }

  release(collection: string, ids: readonly string[]): Promise<void> {
    return this.inner.release(collection, ids);
  }

  declareIndexes(declarations: Readonly<Record<string, readonly IndexDeclaration[]>>): void {
    this.inner.declareIndexes(declarations);
  }

  ping(): Promise<void> {
    return this.inner.ping();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
