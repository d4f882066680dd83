// The claims part of the store port: what one request may do once (a
// signature accepted) is claimed as a marker, on its own with a read, or
// with the request's one write in the same step.

import type { StoredRecord } from './record-store.js';

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

/** Claims made with a read or with the request's write, and markers swept past their time. */
export interface ClaimStore {
  /**
   * Makes `claim` and reads `read` in one atomic step (one statement
   * where the adapter can): answers whether the claim was new and the records as they
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
   * written rather than as a record of `claim.collection` (an adapter's
   * choice: see its notes). It is then seen by claimAndWrite of the same
   * claim and insert, which is how a claim comes again (its id names a
   * request, whose insert names the record), not by claimAndRead.
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
}
