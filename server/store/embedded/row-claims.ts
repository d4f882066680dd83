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
  /** The claim's collection. */
  collection: string;
  id: string;
  until: number | null;
}

/**
 * Whether a claim whose time is `until` still holds at `now`: the one rule
 * for markers and row claims alike. A time that is not a number is kept
 * (as PostgreSQL keeps one: NULL <= now is not true).
 */
export function liveAt(until: unknown, now: number): boolean {
  return !(typeof until === 'number' && until <= now);
}

/** Whether `kept` is claim `id` of `collection`, still live at `now`. */
export function rowClaimHolds(kept: RowClaim | undefined, collection: string, id: string, now: number): boolean {
  return kept !== undefined && kept.collection === collection && kept.id === id && liveAt(kept.until, now);
}

/** The row claims of a store's state, by row, and per claim collection in the order they were kept. */
export class RowClaims {
  private readonly byRow = new Map<string, Map<string, RowClaim>>();
  /** Per claim collection, each claim with its row, in the order kept (a Map keeps its insertion order). */
  private readonly kept = new Map<string, Map<RowClaim, [collection: string, id: string]>>();

  get(collection: string, id: string): RowClaim | undefined {
    return this.byRow.get(collection)?.get(id);
  }

  /** The claims kept with the rows of one collection, by id (none: undefined). */
  of(collection: string): ReadonlyMap<string, RowClaim> | undefined {
    return this.byRow.get(collection);
  }

  set(collection: string, id: string, claim: RowClaim): void {
    let rows = this.byRow.get(collection);
    if (!rows) this.byRow.set(collection, (rows = new Map()));
    const previous = rows.get(id);
    if (previous) this.kept.get(previous.collection)?.delete(previous);
    rows.set(id, claim);
    if (claim.until === null) return; // held for as long as its row: never pruned
    let order = this.kept.get(claim.collection);
    if (!order) this.kept.set(claim.collection, (order = new Map()));
    order.set(claim, [collection, id]);
  }

  delete(collection: string, id: string): void {
    const rows = this.byRow.get(collection);
    const claim = rows?.get(id);
    if (!claim) return;
    rows!.delete(id);
    this.kept.get(claim.collection)?.delete(claim);
  }

  /**
   * Forgets the claims of `claimCollection` whose time is at most `max`,
   * walking them from the oldest kept. Claims are kept in about the order of
   * their times, so the walk stops at the first still live; one kept out of
   * order waits for those before it, and holds nothing meanwhile once past
   * its time.
   */
  prune(claimCollection: string, max: number): void {
    const order = this.kept.get(claimCollection);
    if (!order) return;
    for (const [claim, [collection, id]] of order) {
      if (claim.until! > max) return;
      order.delete(claim);
      this.byRow.get(collection)!.delete(id);
    }
  }
}
