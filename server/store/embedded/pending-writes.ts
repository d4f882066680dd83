/**
 * Which records and collections have changes applied in memory but not yet
 * durable, with the journal sequence that makes them durable. A read waits
 * only when what it reads is pending, so reads of settled records (a
 * terminal, an account) never queue behind unrelated writes.
 */
export class PendingWrites {
  private readonly records = new Map<string, number>();
  private readonly collections = new Map<string, number>();

  /** Notes that `seq` changes these records. */
  add(seq: number, keys: Iterable<[collection: string, id: string]>): void {
    for (const [collection, id] of keys) {
      this.records.set(recordKey(collection, id), seq);
      this.collections.set(collection, seq);
    }
  }

  /** Forgets the records `seq` changed, unless a later sequence changed them again. */
  settle(seq: number, keys: Iterable<[collection: string, id: string]>): void {
    for (const [collection, id] of keys) {
      const key = recordKey(collection, id);
      if (this.records.get(key) === seq) this.records.delete(key);
      if (this.collections.get(collection) === seq) this.collections.delete(collection);
    }
  }

  /** The sequence a read of one record must wait for, if any. */
  forRecord(collection: string, id: string): number | undefined {
    return this.records.get(recordKey(collection, id));
  }

  /** The sequence a read across a collection must wait for, if any. */
  forCollection(collection: string): number | undefined {
    return this.collections.get(collection);
  }
}

const recordKey = (collection: string, id: string) => `${collection}\u0000${id}`;
