import { newId } from '../accounts/secrets.js';
import type { Transaction } from '../store/store.js';

/** One line of an account's trace (addendum §7, §8). */
export interface TraceEntry {
  [field: string]: unknown;
  id: string;
  account_id: string;
  type: string;
  at: string;
  /** Increases with every entry written, so the trace reads newest first. */
  order: number;
  session_id?: string;
  event_id?: string;
}

// Ordering only: starts from the wall clock so that it keeps increasing across restarts.
let lastOrder = Date.now() * 1000;

export function traceEntry(accountId: string, type: string, at: string, fields: Record<string, unknown> = {}): TraceEntry {
  lastOrder += 1;
  return { ...fields, id: newId('trc'), account_id: accountId, type, at, order: lastOrder };
}

/** Writes a trace entry in the transaction of what it records. */
export function trace(tx: Pick<Transaction, 'insert'>, accountId: string, type: string, at: string, fields: Record<string, unknown> = {}): void {
  const entry = traceEntry(accountId, type, at, fields);
  tx.insert('trace', entry.id, entry);
}
