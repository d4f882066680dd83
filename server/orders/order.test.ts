import t from 'tap';
import { orderIndexes, orderKey, orderStatuses, publicOrder, type OrderRecord } from './order.js';

// An order as the API answers it, and how it is kept: under its merchant,
// with the owning account beside it but never shown.

t.test('an order is answered without the account that owns it, everything else as kept', async (t) => {
  const record: OrderRecord = {
    orderId: 'o1',
    merchantId: 'm1',
    terminal: 'POS-1',
    amount: 1500,
    currency: 'USD',
    status: 'PAID',
    authorizationCode: 'A1',
    paidAt: '2026-11-21T10:01:00.000Z',
    createdAt: '2026-11-21T10:00:00.000Z',
    updatedAt: '2026-11-21T10:01:00.000Z',
    history: [],
    account_id: 'acc_1',
  };
  const { account_id: _owner, ...expected } = record;
  t.same(publicOrder(record), expected);
  t.notOk('account_id' in publicOrder(record));
});

t.test(
  'orders are kept under merchant and order id: the same order id under two merchants is two orders',
  async (t) => {
    t.equal(orderKey('m1', 'o1'), 'm1/o1');
    t.not(orderKey('m1', 'o1'), orderKey('m2', 'o1'));
    t.same(orderStatuses, ['PENDING', 'PAID', 'DISCARDED', 'VOID_PENDING', 'VOIDED']);
  },
);

t.test(
  "the lists of orders each have an index: a merchant's, by status, by terminal, by both, newest first; an account's for its reset",
  async (t) => {
    const byCreated = { field: 'createdAt', type: 'time' };
    t.same(orderIndexes, [
      { equals: ['merchantId'], order: byCreated },
      { equals: ['merchantId', 'status'], order: byCreated },
      { equals: ['merchantId', 'terminal'], order: byCreated },
      { equals: ['merchantId', 'terminal', 'status'], order: byCreated },
      { equals: ['account_id'] },
    ]);
  },
);
