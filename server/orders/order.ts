import type { IndexDeclaration } from '../store/store.js';
export const orderStatuses = ['PENDING', 'PAID', 'DISCARDED', 'VOID_PENDING', 'VOIDED'] as const;
export type OrderStatus = (typeof orderStatuses)[number];

export interface HistoryEntry {
  from: OrderStatus;
  to: OrderStatus;
  trigger: 'invalidation' | 'commit' | 'invalidation/commit';
  actor: 'merchant' | 'pos';
  at: string;
  overridesDiscard?: true;
  reason?: string;
}

/** An order as answered (INTERFACE.md §3). */
export interface Order {
  orderId: string;
  merchantId: string;
  terminal: string;
  amount: number;
  currency: string;
  status: OrderStatus;
  authorizationCode?: string;
  paidAt?: string;
  description?: string;
  createdAt: string;
  updatedAt: string;
  history: HistoryEntry[];
}

/** What is stored: the order plus the owning account, under `${merchantId}/${orderId}`. */
export interface OrderRecord extends Order {
  [field: string]: unknown;
  account_id: string;
}

export const orderKey = (merchantId: string, orderId: string) => `${merchantId}/${orderId}`;

export function publicOrder(record: OrderRecord): Order {
  const { account_id: _account, ...order } = record;
  return order;
}

/**
 * The lists of orders (INTERFACE.md §3): a merchant's, or one terminal's, all or
 * of one status, newest first, paged.
 */
export const orderIndexes: IndexDeclaration[] = [
  { equals: ['merchantId'], order: { field: 'createdAt', type: 'time' } },
  { equals: ['merchantId', 'status'], order: { field: 'createdAt', type: 'time' } },
  { equals: ['merchantId', 'terminal'], order: { field: 'createdAt', type: 'time' } },
  { equals: ['merchantId', 'terminal', 'status'], order: { field: 'createdAt', type: 'time' } },
  // An account's orders, for its reset.
  { equals: ['account_id'] },
];
