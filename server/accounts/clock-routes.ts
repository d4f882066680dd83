import { accountNow, iso, type Clock } from '../clock.js';
import type { OperationHandlers } from '../http/bind-operations.js';
import type { AppContext } from '../http/context.js';
import type { Store } from '../store/store.js';
import type { DeliveryRecord } from '../webhooks/delivery-record.js';
import type { ScheduleRecord } from '../sessions/schedule-record.js';
import { QUEUED, retimeAccount } from '../webhooks/due-times.js';
import type { Account } from './account.js';

/**
 * The per-account clock of the control plane (INTERFACE.md §6). `afterAdvance`
 * lets what the time move made due happen before the answer.
 */
export function clockHandlers(
  store: Store,
  clock: Clock,
  afterAdvance: (accountId: string) => Promise<unknown> = async () => undefined,
): OperationHandlers {
  const answer = (account: Account) => ({ now: iso(accountNow(clock, account)), offset_ms: account.clock_offset_ms });
  return {
    getControlClock: async (ctx: AppContext) => {
      ctx.body = answer(ctx.state.account!);
    },
    getNextDue: async (ctx: AppContext) => {
      const account = ctx.state.account!;
      // Each through the account's due-time index: the first record of each, nothing more.
      const byDue = {
        where: { account_id: account.account_id },
        range: { field: 'due_ms', max: QUEUED - 1 },
        orderBy: { field: 'due_ms', direction: 'asc' as const },
        limit: 1,
      };
      const [delivery] = await store.list<DeliveryRecord>('deliveries', byDue);
      const [schedule] = await store.list<ScheduleRecord>('schedules', byDue);
      const candidates = [
        ...(delivery
          ? [
              {
                at: delivery.next_attempt_at,
                kind: 'webhook_attempt' as const,
                session_id: delivery.session_id,
                event_id: delivery.event_id,
              },
            ]
          : []),
        ...(schedule ? [{ at: schedule.due_at, kind: 'accreditation' as const, session_id: schedule.session_id }] : []),
      ].sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
      const next = candidates[0];
      ctx.body = {
        next: next ? { ...next, in_ms: Math.max(0, Date.parse(next.at) - accountNow(clock, account)) } : null,
      };
    },
    advanceControlClock: async (ctx: AppContext) => {
      const { ms } = ctx.state.body as { ms: number };
      const id = ctx.state.account!.account_id;
      const moved = await store.transact(async (tx) => {
        const account = (await tx.get<Account>('accounts', id))!;
        const next = { ...account, clock_offset_ms: account.clock_offset_ms + ms };
        tx.put('accounts', id, next);
        // In the same transaction: what was due on the old offset is found on the new one, even after a crash.
        await retimeAccount(tx, next, next.clock_offset_ms);
        return next;
      });
      await afterAdvance(id);
      ctx.body = answer(moved);
    },
  };
}
