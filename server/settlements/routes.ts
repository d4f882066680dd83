import type { OperationHandlers } from '../http/operation.js';
import type { TerminalService } from '../terminals/terminal-service.js';
import type { SettlementService } from './settlement-service.js';

export function settlementHandlers(settlements: SettlementService, terminals: TerminalService): OperationHandlers {
  return {
    notifySettlement: async ({ signature, body }, ctx) => {
      const { settlement, replayed } = await settlements.notify(signature, body);
      // INTERFACE.md §4: the notification answers 200, new or replayed.
      ctx.body = {
        title: 'Settlement notification',
        detail: replayed
          ? 'this batch was already registered with the same fields; nothing changed'
          : 'settlement registered',
        data: settlement,
      };
    },
    listSettlements: async ({ account, params, query }, ctx) => {
      const data = await settlements.list(
        account,
        params.serialNumber,
        {
          sort: query.sort ?? '-closedAt',
          size: query.size ?? 20,
          page: query.page ?? 1,
          ...(query.from ? { from: query.from } : {}),
          ...(query.to ? { to: query.to } : {}),
        },
        () => terminals.get(account, params.serialNumber),
      );
      ctx.body = { title: 'Settlements', data };
    },
  };
}
