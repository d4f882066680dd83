import type { OperationHandlers } from '../http/bind-operations.js';
import type { AppContext } from '../http/context.js';
import type { TerminalService } from '../terminals/terminal-service.js';
import type { Settlement } from './settlement.js';
import type { SettlementQuery, SettlementService } from './settlement-service.js';

/** `settlementsOf(ctx)`: the settlement service over the store the request writes through. */
export function settlementHandlers(
  settlementsOf: (ctx: AppContext) => SettlementService,
  terminals: TerminalService,
): OperationHandlers {
  return {
    notifySettlement: async (ctx) => {
      const { settlement, replayed } = await settlementsOf(ctx).notify(
        ctx.state.terminal!,
        ctx.state.account!,
        ctx.state.body as Settlement,
      );
      // INTERFACE.md §4: the notification answers 200, new or replayed.
      ctx.body = {
        title: 'Settlement notification',
        detail: replayed
          ? 'this batch was already registered with the same fields; nothing changed'
          : 'settlement registered',
        data: settlement,
      };
    },
    listSettlements: async (ctx) => {
      const account = ctx.state.account!;
      const serial = ctx.state.params!.serialNumber!;
      const query = ctx.state.query as Partial<SettlementQuery>;
      const data = await settlementsOf(ctx).list(
        account,
        serial,
        {
          sort: query.sort ?? '-closedAt',
          size: query.size ?? 20,
          page: query.page ?? 1,
          ...(query.from ? { from: query.from } : {}),
          ...(query.to ? { to: query.to } : {}),
        },
        () => terminals.get(account, serial),
      );
      ctx.body = { title: 'Settlements', data };
    },
  };
}
