interface Entry {
  key: string;
  expiresAt: number;
  addedAt: number;
}

/**
 * Remembers accepted signatures until their timestamp leaves the tolerance
 * window, after which a replay would be refused as stale anyway. Entries
 * leave in the order they came (a FIFO queue beside the lookup map): from
 * the oldest while they have expired, and in any case two windows after they
 * came (a timestamp can be at most one window ahead). Memory is bounded by
 * the request rate times two windows.
 */
export class ReplayCache {
  private readonly expiries = new Map<string, number>();
  // Stryker disable next-line ArrayDeclaration: a stray first entry would be dropped, unseen, by the first prune
  private queue: Entry[] = [];
  private head = 0;

  constructor(private readonly windowMs: number) {}

  get size(): number {
    return this.expiries.size;
  }

  /** Entries held in memory, the queue's included: what the compaction gives back. */
  get heldEntries(): number {
    return this.queue.length;
  }

  /** True when `key` was already accepted and has not expired. Records it otherwise. */
  checkAndRemember(key: string, expiresAt: number, now: number): boolean {
    this.prune(now);
    const known = this.expiries.get(key) ?? Number.NEGATIVE_INFINITY; // never accepted: nothing to refuse
    if (known > now) return true;
    this.expiries.set(key, expiresAt);
    this.queue.push({ key, expiresAt, addedAt: now });
    return false;
  }

  /** The signatures still remembered at `now`, as [key, expiresAt], oldest first. */
  live(now: number): Array<[key: string, expiresAt: number]> {
    this.prune(now);
    const live: Array<[string, number]> = [];
    for (const [key, expiresAt] of this.expiries) if (expiresAt > now) live.push([key, expiresAt]);
    return live;
  }

  /** Remembers signatures accepted elsewhere (by the process before a restart). */
  remember(entries: Iterable<readonly [key: string, expiresAt: number]>, now: number): void {
    for (const [key, expiresAt] of entries) {
      if (expiresAt <= now) continue;
      this.expiries.set(key, expiresAt);
      this.queue.push({ key, expiresAt, addedAt: now });
    }
  }

  private prune(now: number): void {
    while (this.head < this.queue.length) {
      const entry = this.queue[this.head]!;
      if (entry.expiresAt > now && entry.addedAt + 2 * this.windowMs > now) break;
      // The key may have been accepted again since; only drop the entry that is ours.
      if (this.expiries.get(entry.key) === entry.expiresAt) this.expiries.delete(entry.key);
      this.head += 1;
    }
    // Compacts once most of the queue has left; where exactly is a matter of memory only.
    // Stryker disable next-line EqualityOperator,LogicalOperator,ConditionalExpression: where the threshold lies changes only when memory is given back (that it is: the heldEntries test)
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
  }
}
