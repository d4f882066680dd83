import { accountNow, iso, type Clock } from '../clock.js';
import type { OperationHandlers } from '../http/bind-operations.js';
import type { AppContext } from '../http/context.js';
import type { Store } from '../store/store.js';
import { retimeAccount } from '../webhooks/due-times.js';
import type { Account } from './account.js';

/**
 * The per-account clock of the control plane (addendum §6). `afterAdvance`
 * lets what the time move made due happen before the answer.
 */
export function clockHandlers(store: Store, clock: Clock, afterAdvance: (accountId: string) => Promise<unknown> = async () => undefined): OperationHandlers {
  const answer = (account: Account) => ({ now: iso(accountNow(clock, account)), offset_ms: account.clock_offset_ms });
  return {
    getControlClock: async (ctx: AppContext) => {
      ctx.body = answer(ctx.state.account!);
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
