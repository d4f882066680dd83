import { currencyOf } from '../../protocol/currencies.js';
import type { Body, MessageHeader, NexoMessage } from '../../protocol/nexo/messages.js';
import { periodCount, type NexoTerminalState } from './nexo-state.js';
import { answer, failure, reconciliationTotals, responseField } from './responses.js';

/**
 * A SaleReconciliation: the period's totals by currency and type, and a new
 * period that starts at zero. Anything else is refused, the state unchanged.
 */
export function closePeriod(
  state: NexoTerminalState,
  header: MessageHeader,
  body: Body,
): { state?: NexoTerminalState; told?: string; message: NexoMessage } {
  if (body.ReconciliationType !== 'SaleReconciliation')
    return {
      message: failure(
        header,
        'NotAllowed',
        `ReconciliationType ${String(body.ReconciliationType)} is not SaleReconciliation`,
      ),
    };
  const closed = state.reconciliationId;
  const totals = reconciliationTotals(state, currencyOf);
  const count = periodCount(state);
  const next: NexoTerminalState = {
    ...state,
    totals: {},
    reconciliationId: closed + 1,
    reconciledCount: (state.reconciledCount ?? 0) + count,
  };
  const told = `reconciliation ${closed}: ${count} transaction(s) in ${totals.length} currencies; a new period begins`;
  const message = answer(header, {
    Response: responseField('Success'),
    ReconciliationType: 'SaleReconciliation',
    POIReconciliationID: String(closed),
    TransactionTotals: totals,
  });
  return { state: next, told, message };
}
