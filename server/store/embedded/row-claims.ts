// Claims kept with the row their insert wrote. The store port lets an
// adapter keep a claim made with an insert that is written with the record
// written (claim-store.ts); the embedded store keeps it beside the row, in
// memory, in the insert's journal operation and in the snapshot's line of
// the record, rather than as a marker record of its own: a marker is a
// record to index, journal, snapshot and later delete, for every signed
// settlement (about a sixth of the route's CPU, BENCHMARKS.md). A claim
// past its time holds nothing, so forgetting it (prune) changes no answer.

/** A claim kept with a row: the claim's collection and id, and until when it holds (null: its time was unreadable, so it holds). */
export interface RowClaim {
  c: string;
  id: string;
  u: number | null;
}

export function isRowClaim(value: unknown): value is RowClaim {
  const claim = value as Record<string, unknown> | null;
  return (
    typeof claim === 'object' &&
    claim !== null &&
    typeof claim.c === 'string' &&
    typeof claim.id === 'string' &&
    (claim.u === null || typeof claim.u === 'number')
  );
}

/** Whether `kept` is claim `id` of `collection`, still live at `now` (one whose time is unreadable is kept, as a marker is). */
export function rowClaimHolds(kept: RowClaim | undefined, collection: string, id: string, now: number): boolean {
  return kept !== undefined && kept.c === collection && kept.id === id && !(kept.u !== null && kept.u <= now);
}

/** Below this many forgotten entries, a prune queue is not compacted (compacting often would cost more than it saves). */
const COMPACT_AFTER = 1024;

/** The row claims of a store's state, by row, with a queue per claim collection in the order they were kept. */
export class RowClaims {
  private readonly byRow = new Map<string, Map<string, RowClaim>>();
  private readonly queues = new Map<string, { rows: Array<[string, string, RowClaim]>; head: number }>();

  get(collection: string, id: string): RowClaim | undefined {
    return this.byRow.get(collection)?.get(id);
  }

  set(collection: string, id: string, claim: RowClaim): void {
    let rows = this.byRow.get(collection);
    if (!rows) this.byRow.set(collection, (rows = new Map()));
    rows.set(id, claim);
    if (claim.u === null) return; // held for as long as its row: never pruned
    let queue = this.queues.get(claim.c);
    if (!queue) this.queues.set(claim.c, (queue = { rows: [], head: 0 }));
    queue.rows.push([collection, id, claim]);
  }

  delete(collection: string, id: string): void {
    this.byRow.get(collection)?.delete(id);
  }

  /**
   * Forgets the claims of `claimCollection` whose time is at most `max`,
   * walking its queue from the oldest. Claims are kept in about the order of
   * their times, so the walk stops at the first still live; one kept out of
   * order waits for those before it, and holds nothing meanwhile once past
   * its time.
   */
  prune(claimCollection: string, max: number): void {
    const queue = this.queues.get(claimCollection);
    if (!queue) return;
    const { rows } = queue;
    while (queue.head < rows.length) {
      const [collection, id, claim] = rows[queue.head]!;
      if (claim.u! > max) break;
      const kept = this.byRow.get(collection);
      if (kept?.get(id) === claim) kept.delete(id);
      queue.head += 1;
    }
    if (queue.head > COMPACT_AFTER && queue.head * 2 > rows.length) {
      rows.splice(0, queue.head);
      queue.head = 0;
    }
  }
}
