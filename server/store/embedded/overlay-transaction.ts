import { appError } from '../../errors.js';
import type { MemoryState, Op } from './memory-state.js';
import type { RowClaim } from './row-claims.js';
import { runQuery } from '../query.js';
import type { Query, StoredRecord, Transaction } from '../store.js';

/**
 * A transaction over the in-memory state: writes are buffered in an overlay
 * that its own reads see, and become operations for the journal on commit.
 */
export class OverlayTransaction implements Transaction {
  private readonly overlay = new Map<string, Map<string, StoredRecord | null>>();
  private readonly ops: Op[] = [];
  private readonly inserts: Array<[string, string]> = [];
  /** What this transaction read, so a read-only one waits only for those records to be durable. */
  readonly readRecords: Array<[string, string]> = [];
  readonly readCollections = new Set<string>();

  constructor(private readonly state: MemoryState) {}

  async get<T extends StoredRecord>(collection: string, id: string): Promise<T | undefined> {
    this.readRecords.push([collection, id]);
    return this.read(collection, id) as T | undefined;
  }

  async list<T extends StoredRecord>(collection: string, query: Query = {}): Promise<T[]> {
    this.readCollections.add(collection);
    // Through a declared index when one serves: its matches, with this transaction's own writes laid over them.
    const indexed = this.state.candidates(collection, query);
    if (!indexed) return runQuery(this.entries(collection) as Iterable<[string, T]>, query);
    const layer = this.overlay.get(collection);
    const merged: Array<[string, StoredRecord]> = layer ? indexed.filter(([id]) => !layer.has(id)) : indexed;
    if (layer) for (const [id, value] of layer) if (value) merged.push([id, value]);
    return runQuery(merged as Array<[string, T]>, query);
  }

  insert(collection: string, id: string, value: StoredRecord): void {
    this.inserts.push([collection, id]);
    this.put(collection, id, value);
  }

  /**
   * An insert made with a claim, kept with the row (row-claims.ts). Its
   * caller has just read the row as absent in this transaction, which runs
   * alone: the check commitOps makes of other inserts would look again.
   */
  insertClaimed(collection: string, id: string, value: StoredRecord, claim: RowClaim): void {
    this.layer(collection).set(id, value);
    this.ops.push({ op: 'put', collection, id, value, claim });
  }

  /** The claim kept with a row, as the state has it (read with the row: an answer waits until it is durable). */
  rowClaim(collection: string, id: string): RowClaim | undefined {
    this.readRecords.push([collection, id]);
    return this.state.rowClaim(collection, id);
  }

  put(collection: string, id: string, value: StoredRecord): void {
    this.layer(collection).set(id, value);
    this.ops.push({ op: 'put', collection, id, value });
  }

  delete(collection: string, id: string): void {
    this.layer(collection).set(id, null);
    this.ops.push({ op: 'del', collection, id });
  }

  /** The operations to commit; throws DuplicateKeyError when an insert hit an existing id. */
  commitOps(): Op[] {
    const seen = new Set<string>();
    for (const [collection, id] of this.inserts) {
      const key = `${collection}\u0000${id}`;
      // An insert of the same id twice in one transaction is a duplicate too.
      if (seen.has(key) || this.state.get(collection, id) !== undefined)
        throw appError('DUPLICATE_KEY', collection, id);
      seen.add(key);
    }
    return this.ops;
  }

  private read(collection: string, id: string): StoredRecord | undefined {
    const layer = this.overlay.get(collection);
    if (layer?.has(id)) return layer.get(id) ?? undefined;
    return this.state.get(collection, id);
  }

  private *entries(collection: string): Generator<[string, StoredRecord]> {
    const layer = this.overlay.get(collection);
    for (const [id, value] of this.state.entries(collection)) {
      if (!layer?.has(id)) yield [id, value];
    }
    if (!layer) return;
    for (const [id, value] of layer) if (value) yield [id, value];
  }

  private layer(collection: string): Map<string, StoredRecord | null> {
    let layer = this.overlay.get(collection);
    if (!layer) {
      layer = new Map();
      this.overlay.set(collection, layer);
    }
    return layer;
  }
}
