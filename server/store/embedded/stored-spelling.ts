import type { StoredRecord } from '../store.js';
import type { Op } from './memory-state.js';
import type { RowClaim } from './row-claims.js';

// The journal and the snapshot spell a change and a row claim in single
// letters: a change is written once per operation of every write, and these
// files are a format already on disks. The letters are named here, once;
// the rest of the store reads collection, value, claim and until.

/** A change as the journal writes it: c the collection, v the record, k the claim kept with its row. */
export type StoredOp =
  { op: 'put'; c: string; id: string; v: StoredRecord; k?: StoredRowClaim } | { op: 'del'; c: string; id: string };

/** A row claim as the journal and the snapshot write it: c the claim's collection, u until when it holds. */
export interface StoredRowClaim {
  c: string;
  id: string;
  u: number | null;
}

export function storedClaim(claim: RowClaim): StoredRowClaim {
  return { c: claim.collection, id: claim.id, u: claim.until };
}

export function claimOf(stored: StoredRowClaim): RowClaim {
  return { collection: stored.c, id: stored.id, until: stored.u };
}

export function storedOp(op: Op): StoredOp {
  if (op.op === 'del') return { op: 'del', c: op.collection, id: op.id };
  return op.claim
    ? { op: 'put', c: op.collection, id: op.id, v: op.value, k: storedClaim(op.claim) }
    : { op: 'put', c: op.collection, id: op.id, v: op.value };
}

export function opOf(stored: StoredOp): Op {
  if (stored.op === 'del') return { op: 'del', collection: stored.c, id: stored.id };
  return stored.k
    ? { op: 'put', collection: stored.c, id: stored.id, value: stored.v, claim: claimOf(stored.k) }
    : { op: 'put', collection: stored.c, id: stored.id, value: stored.v };
}

export function isStoredRowClaim(value: unknown): value is StoredRowClaim {
  // A JSON value that is not an object has no such fields; null has none to read.
  const claim = value as Record<string, unknown> | null;
  return (
    typeof claim?.c === 'string' && typeof claim.id === 'string' && (claim.u === null || typeof claim.u === 'number')
  );
}

export function isStoredOp(value: unknown): value is StoredOp {
  // A primitive or null has no string fields: refused by the first test.
  const op = value as Record<string, unknown> | null;
  if (typeof op?.c !== 'string' || typeof op.id !== 'string') return false;
  if (op.op === 'del') return true;
  return op.op === 'put' && typeof op.v === 'object' && op.v !== null && (op.k === undefined || isStoredRowClaim(op.k));
}
