import { newId } from '../accounts/secrets.js';
import type { Transaction } from '../store/store.js';
import type { IndexDeclaration } from '../store/store.js';

/** One line of an account's trace (INTERFACE.md §7, §8). */
export interface TraceRecord {
  [field: string]: unknown;
  id: string;
  account_id: string;
  type: string;
  at: string;
  /** Increases with every entry written: insertion order. */
  order: number;
  /**
   * What the trace is listed by, newest first: `at`, then insertion order
   * for entries at the same instant (an attempt's entry, written when it
   * ends, carries the time it started).
   */
  listed: string;
  session_id?: string;
  event_id?: string;
}

// Ordering only: wall-clock microseconds, kept increasing within the process, so the
// order holds across restarts and interleaves the entries of instances sharing a database.
let lastOrder = 0;

export function traceEntry(
  accountId: string,
  type: string,
  at: string,
  fields: Record<string, unknown> = {},
): TraceRecord {
  lastOrder = Math.max(lastOrder + 1, Math.floor((performance.timeOrigin + performance.now()) * 1000));
  return {
    ...fields,
    id: newId('trc'),
    account_id: accountId,
    type,
    at,
    order: lastOrder,
    listed: `${at}|${String(lastOrder).padStart(17, '0')}`,
  };
}

/** Writes a trace entry in the transaction of what it records. */
export function trace(
  tx: Pick<Transaction, 'insert'>,
  accountId: string,
  type: string,
  at: string,
  fields: Record<string, unknown> = {},
): void {
  const entry = traceEntry(accountId, type, at, fields);
  tx.insert('trace', entry.id, entry);
}

/** The console's trace, newest first, by type and by session; the progress checklist reads it in written order. */
export const traceIndexes: IndexDeclaration[] = [
  { equals: ['account_id'], order: { field: 'listed', type: 'text' } },
  { equals: ['account_id', 'type'], order: { field: 'listed', type: 'text' } },
  { equals: ['account_id', 'session_id'], order: { field: 'listed', type: 'text' } },
  { equals: ['account_id', 'type', 'session_id'], order: { field: 'listed', type: 'text' } },
  { equals: ['account_id'], order: { field: 'order', type: 'number' } },
  { equals: ['account_id', 'type'], order: { field: 'order', type: 'number' } },
  // The console's live view polls for what was written since its cursor, with its filters.
  { equals: ['account_id', 'session_id'], order: { field: 'order', type: 'number' } },
  { equals: ['account_id', 'type', 'session_id'], order: { field: 'order', type: 'number' } },
  // The console's checklist (progress.ts): the first entry that completes each step.
  { equals: ['account_id', 'type', 'to'], order: { field: 'order', type: 'number' } },
  { equals: ['account_id', 'type', 'result'], order: { field: 'order', type: 'number' } },
  { equals: ['account_id', 'type', 'event', 'result'], order: { field: 'order', type: 'number' } },
  { equals: ['account_id', 'type', 'receiver'], order: { field: 'order', type: 'number' } },
  // The data-lifetime purge, by the time of the account's clock.
  { equals: ['account_id'], order: { field: 'at', type: 'time' } },
];
