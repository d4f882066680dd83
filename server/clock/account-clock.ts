import { accountNow, iso, type Clock } from '../clock.js';
import type { Store } from '../store/store.js';
import type { DeliveryRecord } from './delivery-record.js';
import type { ScheduleRecord } from './schedule-record.js';
import { QUEUED, retimeAccount } from './due-times.js';
import type { Account } from '../accounts/account.js';

/** What an account's clock reaches next: the earliest webhook attempt or scheduled accreditation. */
export type NextDue =
  | { at: string; kind: 'webhook_attempt'; session_id: string; event_id: string; in_ms: number }
  | { at: string; kind: 'accreditation'; session_id: string; in_ms: number };

/**
 * The per-account clock of the control plane (INTERFACE.md §6): what it
 * reads, what it reaches next, and moving it ahead. `afterAdvance` lets
 * what the move made due happen before the answer.
 */
export class AccountClock {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly afterAdvance: (accountId: string) => Promise<unknown> = async () => undefined,
  ) {}

  read(account: Account): { now: string; offset_ms: number } {
    return { now: iso(accountNow(this.clock, account)), offset_ms: account.clock_offset_ms };
  }

  /** The earliest of each kind, through the account's due-time index: the first record of each, nothing more. */
  async nextDue(account: Account): Promise<NextDue | null> {
    const byDue = {
      where: { account_id: account.account_id },
      range: { field: 'due_ms', max: QUEUED - 1 },
      orderBy: { field: 'due_ms', direction: 'asc' as const },
      limit: 1,
    };
    const [delivery] = await this.store.list<DeliveryRecord>('deliveries', byDue);
    const [schedule] = await this.store.list<ScheduleRecord>('schedules', byDue);
    const now = accountNow(this.clock, account);
    const inMs = (at: string) => Math.max(0, Date.parse(at) - now);
    const candidates: NextDue[] = [
      ...(delivery
        ? [
            {
              at: delivery.next_attempt_at,
              kind: 'webhook_attempt' as const,
              session_id: delivery.session_id,
              event_id: delivery.event_id,
              in_ms: inMs(delivery.next_attempt_at),
            },
          ]
        : []),
      ...(schedule
        ? [
            {
              at: schedule.due_at,
              kind: 'accreditation' as const,
              session_id: schedule.session_id,
              in_ms: inMs(schedule.due_at),
            },
          ]
        : []),
    ].sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
    return candidates[0] ?? null;
  }

  /** Moves the account's clock `ms` ahead, with what was due retimed in the same transaction; then runs what became due. */
  async advance(accountId: string, ms: number): Promise<{ now: string; offset_ms: number }> {
    const moved = await this.store.transact(async (tx) => {
      const account = await tx.get<Account>('accounts', accountId);
      if (!account) throw new Error(`account ${accountId} went away while its clock was moved`);
      const next = { ...account, clock_offset_ms: account.clock_offset_ms + ms };
      tx.put('accounts', accountId, next);
      // In the same transaction: what was due on the old offset is found on the new one, even after a crash.
      await retimeAccount(tx, next, next.clock_offset_ms);
      return next;
    });
    await this.afterAdvance(accountId);
    return this.read(moved);
  }
}
