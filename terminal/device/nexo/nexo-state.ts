import type { NexoMessage } from '../../protocol/nexo/messages.js';

// What an emulated nexo terminal remembers, as a real one keeps it: every
// ServiceID it received (by SaleID) with the response it gave, so that a
// TransactionStatus repeats it the same each time; the transactions of the
// open reconciliation period (a reversal names one); the period's totals;
// and its counters. Written whole before the terminal answers (--state),
// and bounded: the oldest ServiceIDs and transactions go first, long after
// the 48 hours a ServiceID must stay unique for. A reconciliation closes
// the period's totals, not its transactions: a payment of an earlier
// period can still be reversed (Adyen refunds it).

/** nexo's TransactionType, as a reconciliation's PaymentTotals counts them. */
export type TotalsType = 'Debit' | 'Credit' | 'ReverseDebit';

export interface TypeTotals {
  count: number;
  /** Minor units. */
  amount: number;
}

/** A payment or an unreferenced refund the terminal made, as a reversal finds it. */
export interface TerminalTransaction {
  transactionId: string;
  kind: 'payment' | 'refund';
  currency: string;
  /** Minor units. */
  amount: number;
  reversed: number;
  at: string;
}

/** A request the terminal received, and the response it gave once it was done. */
export interface ReceivedService {
  category: string;
  at: string;
  response?: NexoMessage;
}

export interface NexoTerminalState {
  services: Record<string, ReceivedService>;
  transactions: Record<string, TerminalTransaction>;
  /** The open period's totals, by currency and type. */
  totals: Record<string, Partial<Record<TotalsType, TypeTotals>>>;
  reconciliationId: number;
  /** Every transaction a reconciliation counted, over the terminal's life: what the settlements must add up to. */
  reconciledCount: number;
  nextTransaction: number;
  /** The last payment's service key, for a TransactionStatus without a MessageReference. */
  lastPayment?: string;
}

const SERVICES_KEPT = 20_000;
const TRANSACTIONS_KEPT = 20_000;

export const emptyTerminalState = (): NexoTerminalState => ({
  services: {},
  transactions: {},
  totals: {},
  reconciliationId: 1000,
  reconciledCount: 0,
  nextTransaction: 1,
});

export const serviceKey = (saleId: string, serviceId: string) => `${saleId}\u0000${serviceId}`;

/** The newest `limit` entries of an insertion-ordered record. */
function newest<T>(record: Record<string, T>, limit: number): Record<string, T> {
  const keys = Object.keys(record);
  if (keys.length <= limit) return record;
  return Object.fromEntries(keys.slice(keys.length - limit).map((key) => [key, record[key]!]));
}

export function withService(state: NexoTerminalState, key: string, service: ReceivedService): NexoTerminalState {
  const { [key]: _before, ...others } = state.services;
  return { ...state, services: newest({ ...others, [key]: service }, SERVICES_KEPT) };
}

export function withTransaction(state: NexoTerminalState, transaction: TerminalTransaction): NexoTerminalState {
  return {
    ...state,
    transactions: newest({ ...state.transactions, [transaction.transactionId]: transaction }, TRANSACTIONS_KEPT),
  };
}

export function withTotal(
  state: NexoTerminalState,
  currency: string,
  type: TotalsType,
  amount: number,
): NexoTerminalState {
  const byType = state.totals[currency] ?? {};
  const before = byType[type] ?? { count: 0, amount: 0 };
  return {
    ...state,
    totals: {
      ...state.totals,
      [currency]: { ...byType, [type]: { count: before.count + 1, amount: before.amount + amount } },
    },
  };
}

/** The transactions of the open period, as its reconciliation counts them. */
export const periodCount = (state: NexoTerminalState) =>
  Object.values(state.totals)
    .flatMap((byType) => Object.values(byType))
    .reduce((sum, each) => sum + (each?.count ?? 0), 0);
