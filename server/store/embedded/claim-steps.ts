import { isDeepStrictEqual } from 'node:util';
import type {
  Claim,
  ClaimedWrite,
  ClaimedWriteOutcome,
  LinkedRead,
  LinkedRecords,
  ReadBasis,
  StoredRecord,
  Transaction,
} from '../store.js';
import { liveAt, rowClaimHolds, type RowClaim } from './row-claims.js';

// Store.claimAndRead and Store.claimAndWrite as the steps of one
// transaction, for a store whose transactions are cheap and isolated (the
// embedded one). PostgreSQL makes the same steps one statement
// (pg-claims.ts); the store contract holds both to the same answers. As
// there, a claim made with an insert that is written is kept with the row
// (row-claims.ts), and only a claim whose write was not made is a marker.

/** A transaction that can keep a claim with the row an insert writes (OverlayTransaction). */
export interface RowClaimingTransaction extends Transaction {
  insertClaimed(collection: string, id: string, value: StoredRecord, claim: RowClaim): void;
  rowClaim(collection: string, id: string): RowClaim | undefined;
}

/** Whether a marker is there and live. */
function liveMarker(marker: StoredRecord | undefined, claim: Claim): boolean {
  return marker !== undefined && liveAt(marker[claim.liveUntil], claim.now);
}

/** Records the claim's marker unless a live one is there; answers whether it did. */
export async function claimIn(tx: Transaction, claim: Claim): Promise<boolean> {
  if (liveMarker(await tx.get(claim.collection, claim.id), claim)) return false;
  tx.put(claim.collection, claim.id, claim.value);
  return true;
}

/** The record of `read` and the one its field names, each absent when there is none. */
export async function readLinkedIn<T extends StoredRecord, L extends StoredRecord>(
  tx: Pick<Transaction, 'get'>,
  read: LinkedRead,
): Promise<LinkedRecords<T, L>> {
  const record = await tx.get<T>(read.collection, read.id);
  const link = record?.[read.field];
  const linked = typeof link === 'string' ? await tx.get<L>(read.linkedCollection, link) : undefined;
  return { ...(record ? { record } : {}), ...(linked ? { linked } : {}) };
}

/** Whether both records are there and still as the write was decided on. */
export function basisHolds(found: LinkedRecords, basis: ReadBasis): boolean {
  if (!found.record || !found.linked) return false;
  const linked = found.linked;
  // The record handed out is the one kept, so the same object is the common case; equal content counts too.
  if (found.record !== basis.record && !isDeepStrictEqual(found.record, basis.record)) return false;
  for (const field in basis.linkedFields) {
    const value = basis.linkedFields[field];
    if (linked[field] !== value && !isDeepStrictEqual(linked[field], value)) return false;
  }
  return true;
}

export async function claimAndWriteIn<T extends StoredRecord, L extends StoredRecord>(
  tx: RowClaimingTransaction,
  claim: Claim,
  read: LinkedRead,
  basis: ReadBasis,
  write: ClaimedWrite,
): Promise<ClaimedWriteOutcome<T, L>> {
  if (write.kind === 'insert') return claimAndInsertIn(tx, claim, read, basis, write);
  const claimed = await claimIn(tx, claim);
  const found = await readLinkedIn<T, L>(tx, read);
  if (!basisHolds(found, basis)) return { claimed, written: false, changed: found };
  if (!claimed) return { claimed, written: false };
  const there = await tx.get(write.collection, write.id);
  if (!there || (there !== write.expected && !isDeepStrictEqual(there, write.expected)))
    return { claimed, written: false };
  tx.put(write.collection, write.id, write.value);
  return { claimed, written: true };
}

/**
 * The insert's claim and write: held by a live marker or by the row the
 * same request wrote (its claim kept there); when new, kept with the row if
 * the row is written, else recorded as a marker.
 */
async function claimAndInsertIn<T extends StoredRecord, L extends StoredRecord>(
  tx: RowClaimingTransaction,
  claim: Claim,
  read: LinkedRead,
  basis: ReadBasis,
  write: ClaimedWrite & { kind: 'insert' },
): Promise<ClaimedWriteOutcome<T, L>> {
  const there = await tx.get(write.collection, write.id);
  // A claim kept with a row goes with it: where there is no row, there is none to look up.
  const held =
    liveMarker(await tx.get(claim.collection, claim.id), claim) ||
    (there !== undefined &&
      rowClaimHolds(tx.rowClaim(write.collection, write.id), claim.collection, claim.id, claim.now));
  const mark = () => (held ? false : (tx.put(claim.collection, claim.id, claim.value), true));
  const found = await readLinkedIn<T, L>(tx, read);
  if (!basisHolds(found, basis)) return { claimed: mark(), written: false, changed: found };
  if (held) return { claimed: false, written: false };
  if (there) return { claimed: mark(), written: false, existing: there };
  const until = claim.value[claim.liveUntil];
  tx.insertClaimed(write.collection, write.id, write.value, {
    collection: claim.collection,
    id: claim.id,
    until: typeof until === 'number' ? until : null,
  });
  return { claimed: true, written: true };
}
