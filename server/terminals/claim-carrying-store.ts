import { StoreDecorator } from '../store/store-decorator.js';
import type { ClaimedWrite, Store, StoredRecord } from '../store/store.js';

/** Makes the request's signature claim with `write`; refuses as the guard would, and throws TerminalChangedError when nothing was written for that reason. */
export type ClaimWith = (write: ClaimedWrite) => Promise<{ written: boolean; existing?: StoredRecord }>;

/**
 * The store a signed request's handler writes through: its first
 * insertIfAbsent or replaceIf makes the request's signature claim in the
 * same step as the write (one statement on PostgreSQL), so the claim costs
 * no round trip of its own. Everything else, and every later write, goes
 * to the store as it is.
 */
export class ClaimCarryingStore extends StoreDecorator {
  private attempted = false;

  constructor(
    inner: Store,
    private readonly claimWith: ClaimWith,
  ) {
    super(inner);
  }

  /** Whether a write has carried the claim (made, or refused). */
  get claimed(): boolean {
    return this.attempted;
  }

  override async insertIfAbsent<T extends StoredRecord>(
    collection: string,
    id: string,
    value: StoredRecord,
  ): Promise<T | undefined> {
    if (this.attempted) return super.insertIfAbsent<T>(collection, id, value);
    const outcome = await this.carry({ kind: 'insert', collection, id, value });
    return outcome.written ? undefined : (outcome.existing as T | undefined);
  }

  override async replaceIf(
    collection: string,
    id: string,
    expected: StoredRecord,
    next: StoredRecord,
  ): Promise<boolean> {
    if (this.attempted) return super.replaceIf(collection, id, expected, next);
    return (await this.carry({ kind: 'replace', collection, id, expected, value: next })).written;
  }

  private carry(write: ClaimedWrite): ReturnType<ClaimWith> {
    this.attempted = true;
    return this.claimWith(write);
  }
}
