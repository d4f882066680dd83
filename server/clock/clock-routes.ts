import type { OperationHandlers } from '../http/operation.js';
import type { AccountClock } from './account-clock.js';

/** The control plane's clock operations (INTERFACE.md §6). */
export function clockHandlers(clock: AccountClock): OperationHandlers {
  return {
    getControlClock: ({ account }, ctx) => {
      ctx.body = clock.read(account);
    },
    getNextDue: async ({ account }, ctx) => {
      ctx.body = { next: await clock.nextDue(account) };
    },
    advanceControlClock: async ({ account, body }, ctx) => {
      ctx.body = await clock.advance(account.account_id, body.ms);
    },
  };
}
