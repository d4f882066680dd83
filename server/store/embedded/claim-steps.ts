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

// Store.claimAndRead and Store.claimAndWrite as the steps of one
// transaction, for a store whose transactions are cheap and isolated (the
// embedded one). PostgreSQL makes the same steps one statement
// (pg-claims.ts); the store contract holds both to the same answers.

/** Records the claim's marker unless a live one is there; answers whether it did. */
export async function claimIn(tx: Transaction, claim: Claim): Promise<boolean> {
  const there = await tx.get(claim.collection, claim.id);
  const until = there?.[claim.liveUntil];
  // A marker whose time is unreadable is kept, as PostgreSQL keeps one (NULL <= now is not true).
  if (there && !(typeof until === 'number' && until <= claim.now)) return false;
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
  tx: Transaction,
  claim: Claim,
  read: LinkedRead,
  basis: ReadBasis,
  write: ClaimedWrite,
): Promise<ClaimedWriteOutcome<T, L>> {
  const claimed = await claimIn(tx, claim);
  const found = await readLinkedIn<T, L>(tx, read);
  if (!basisHolds(found, basis)) return { claimed, written: false, changed: found };
  if (!claimed) return { claimed, written: false };
  const there = await tx.get(write.collection, write.id);
  if (write.kind === 'insert') {
    if (there) return { claimed, written: false, existing: there };
    tx.insert(write.collection, write.id, write.value);
    return { claimed, written: true };
  }
  if (!there || (there !== write.expected && !isDeepStrictEqual(there, write.expected)))
    return { claimed, written: false };
  tx.put(write.collection, write.id, write.value);
  return { claimed, written: true };
}
