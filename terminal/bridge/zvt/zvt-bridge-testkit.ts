import type { StoredPayment, ZvtInFlight } from './zvt-journal.js';

// The ZVT bridge's tests' one payment: stored on the terminal as receipt 6,
// trace 11, and its reversal as the bridge asks for it.

export const storedPayment: StoredPayment = {
  orderId: 'o-1',
  amount: 1000,
  currency: 'EUR',
  receipt: 6,
  trace: 11,
  authorizationCode: 'A',
  paidAt: 'then',
};

export const reversalOf: Extract<ZvtInFlight, { kind: 'reversal' }> = {
  kind: 'reversal',
  orderId: 'o-1',
  receipt: 6,
  amount: 1000,
  startedAt: 'then',
};
