import type { Account } from '../accounts/account.js';
import type { DeliveryRecord } from './delivery-record.js';
import type { ScheduleRecord } from './schedule-record.js';
import type { IndexDeclaration } from '../store/store.js';
import type { Store, StoredRecord, Transaction } from '../store/store.js';

// What the background passes (webhook attempts, scheduled accreditations)
// find through an index instead of listing every pending record: `due_ms`,
// the real-clock instant a record is due. Records are due on their
// account's clock (`next_attempt_at`, `due_at`), which runs ahead of the
// server's by the account's offset; so the real instant is that time minus
// the offset, rewritten for the account's own records when its clock moves
// (retimeAccount, in the move's transaction).
//
// Events of one session are delivered strictly in order, so only the first
// pending delivery of a session (the head) has a real due time; the ones
// behind it are QUEUED until it closes (promoteNext). A pass walks the
// index from the earliest due and stops at now: what it examines is what
// is due, however many deliveries wait on a ladder or behind a head.

/** The due time of a delivery waiting behind an earlier one of its session: never reached. */
export const QUEUED = Number.MAX_SAFE_INTEGER;

/** The real-clock instant of a time on an account's clock. */
export const realDue = (accountTime: string, offsetMs: number): number => Date.parse(accountTime) - offsetMs;

/** The dispatcher's pass (earliest due first), a session's next delivery, an account's own for a clock move or a reset. */
export const deliveryIndexes: IndexDeclaration[] = [
  { equals: [], order: { field: 'due_ms', type: 'number' } },
  { equals: ['session_id'], order: { field: 'seq', type: 'number' } },
  { equals: ['account_id'], order: { field: 'due_ms', type: 'number' } },
];

/** The scheduler's pass (earliest due first), and an account's own. */
export const scheduleIndexes: IndexDeclaration[] = [
  { equals: [], order: { field: 'due_ms', type: 'number' } },
  { equals: ['account_id'], order: { field: 'due_ms', type: 'number' } },
];

/** The first pending delivery of a session, if any. */
export async function sessionHead(
  tx: Pick<Transaction, 'list'>,
  sessionId: string,
): Promise<DeliveryRecord | undefined> {
  const [head] = await tx.list<DeliveryRecord>('deliveries', {
    where: { session_id: sessionId },
    orderBy: { field: 'seq', direction: 'asc' },
    limit: 1,
  });
  return head;
}

/**
 * After a session's head delivery was deleted in this transaction: the next
 * one (if any) becomes the head, due when its own time says.
 */
export async function promoteNext(
  tx: Pick<Transaction, 'list' | 'put'>,
  sessionId: string,
  offsetMs: number,
): Promise<void> {
  const next = await sessionHead(tx, sessionId);
  if (next && next.due_ms === QUEUED)
    tx.put('deliveries', next.event_id, { ...next, due_ms: realDue(next.next_attempt_at, offsetMs) });
}

/** An account's clock moved (its offset is now `offsetMs`): its pending records' real due times follow. */
export async function retimeAccount(
  tx: Pick<Transaction, 'list' | 'put'>,
  account: Pick<Account, 'account_id'>,
  offsetMs: number,
): Promise<void> {
  // Only what is not QUEUED: a range on the index, so queued deliveries are not even read.
  const below = { field: 'due_ms', max: QUEUED - 1 };
  for (const delivery of await tx.list<DeliveryRecord>('deliveries', {
    where: { account_id: account.account_id },
    range: below,
  })) {
    tx.put('deliveries', delivery.event_id, { ...delivery, due_ms: realDue(delivery.next_attempt_at, offsetMs) });
  }
  for (const schedule of await tx.list<ScheduleRecord>('schedules', {
    where: { account_id: account.account_id },
    range: below,
  })) {
    tx.put('schedules', schedule.session_id, { ...schedule, due_ms: realDue(schedule.due_at, offsetMs) });
  }
}

/** Records a pass takes at most, the walk below included. */
export const PASS_LIMIT = 512;

/**
 * Gives `due_ms` to the records of `collection` stored by versions before due
 * times. The index sorts records without the field first, so one look tells
 * whether any are left; each is then given its due time by `dueOf`, in a
 * transaction of its own, with its account read there.
 */
export async function giveDueTimes<T extends StoredRecord & { account_id: string; due_ms?: number }>(
  store: Store,
  collection: string,
  idOf: (record: T) => string,
  dueOf: (tx: Transaction, record: T, offsetMs: number) => Promise<number> | number,
): Promise<void> {
  const byDue = { orderBy: { field: 'due_ms', direction: 'asc' as const } };
  for (;;) {
    const [first] = await store.list<T>(collection, { ...byDue, limit: 1 });
    if (!first || typeof first.due_ms === 'number') return;
    // Those without a due time come first; any with one are passed over in their transaction below.
    for (const listed of await store.list<T>(collection, { ...byDue, limit: PASS_LIMIT })) {
      const id = idOf(listed);
      await store.transact(async (tx) => {
        const record = await tx.get<T>(collection, id);
        if (!record || typeof record.due_ms === 'number') return;
        const account = await tx.get<Account>('accounts', record.account_id);
        tx.put(collection, id, { ...record, due_ms: await dueOf(tx, record, account?.clock_offset_ms ?? 0) });
      });
    }
  }
}
