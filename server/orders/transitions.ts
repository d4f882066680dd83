import type { HistoryEntry, Order, OrderStatus } from './order.js';

// INTERFACE.md §3 (the completed table).
// One pure function decides every cell; handlers only persist its answer.

export type OrderTrigger =
  | { kind: 'invalidation'; reason?: string }
  | { kind: 'commit'; authorizationCode: string; paidAt: string; amount?: number }
  | { kind: 'invalidation/commit' };

export type OrderOutcome =
  /** A transition happened: store and answer `order`. */
  | { result: 'changed'; order: Order }
  /** A repeat that changes nothing: answer 200 with the order as it is. */
  | { result: 'unchanged'; order: Order }
  /** Not allowed from this status: 409 ORDER_STATE_CONFLICT. */
  | { result: 'conflict'; currentStatus: OrderStatus; reason: string }
  /** The commit's amount differs from the order's: 422. */
  | { result: 'amount-mismatch'; expected: number; got: number };

type Cell = 'unchanged' | 'conflict' | OrderStatus;

const table: Record<OrderTrigger['kind'], Record<OrderStatus, Cell>> = {
  invalidation: {
    PENDING: 'DISCARDED',
    PAID: 'VOID_PENDING',
    DISCARDED: 'unchanged',
    VOID_PENDING: 'unchanged',
    VOIDED: 'conflict',
  },
  commit: { PENDING: 'PAID', PAID: 'unchanged', DISCARDED: 'PAID', VOID_PENDING: 'conflict', VOIDED: 'conflict' },
  'invalidation/commit': {
    PENDING: 'conflict',
    PAID: 'conflict',
    DISCARDED: 'conflict',
    VOID_PENDING: 'VOIDED',
    VOIDED: 'unchanged',
  },
};

const actorOf: Record<OrderTrigger['kind'], HistoryEntry['actor']> = {
  invalidation: 'merchant',
  commit: 'pos',
  'invalidation/commit': 'pos',
};

export function applyTrigger(order: Order, trigger: OrderTrigger, at: string): OrderOutcome {
  // Stryker disable next-line ConditionalExpression: only a commit carries an amount (the kind test is for the type)
  if (trigger.kind === 'commit' && trigger.amount !== undefined && trigger.amount !== order.amount) {
    return { result: 'amount-mismatch', expected: order.amount, got: trigger.amount };
  }
  const cell = table[trigger.kind][order.status];
  if (cell === 'conflict') {
    return {
      result: 'conflict',
      currentStatus: order.status,
      reason: `${trigger.kind} is not allowed on a ${order.status} order`,
    };
  }
  if (cell === 'unchanged') {
    // A repeated payment confirmation is the same one only with the same authorization code.
    if (trigger.kind === 'commit' && trigger.authorizationCode !== order.authorizationCode) {
      return {
        result: 'conflict',
        currentStatus: order.status,
        reason: 'the order is already PAID with another authorizationCode',
      };
    }
    return { result: 'unchanged', order };
  }
  const entry: HistoryEntry = { from: order.status, to: cell, trigger: trigger.kind, actor: actorOf[trigger.kind], at };
  // Only a commit leaves DISCARDED (the table), so any change from it overrides the discard.
  if (order.status === 'DISCARDED') entry.overridesDiscard = true;
  // Stryker disable next-line ConditionalExpression: only a discard carries a reason (the kind test is for the type)
  if (trigger.kind === 'invalidation' && trigger.reason !== undefined) entry.reason = trigger.reason;
  const paid =
    trigger.kind === 'commit' ? { authorizationCode: trigger.authorizationCode, paidAt: trigger.paidAt } : {};
  return {
    result: 'changed',
    order: { ...order, ...paid, status: cell, updatedAt: at, history: [...order.history, entry] },
  };
}
