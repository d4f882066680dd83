import t from 'tap';
import type { Order, OrderStatus } from './order.js';
import { applyTrigger, type OrderTrigger } from './transitions.js';

const at = '2026-11-21T10:05:00.000Z';
const order = (status: OrderStatus, extra: Partial<Order> = {}): Order => ({
  orderId: 'o1',
  merchantId: 'm1',
  terminal: 'POS-1',
  amount: 1500,
  currency: 'USD',
  status,
  createdAt: '2026-11-21T10:00:00.000Z',
  updatedAt: '2026-11-21T10:00:00.000Z',
  history: [],
  ...(status === 'PAID' || status === 'VOID_PENDING' || status === 'VOIDED'
    ? { authorizationCode: 'A1', paidAt: '2026-11-21T10:01:00.000Z' }
    : {}),
  ...extra,
});
const invalidation: OrderTrigger = { kind: 'invalidation' };
const commit: OrderTrigger = { kind: 'commit', authorizationCode: 'A1', paidAt: '2026-11-21T10:04:00.000Z' };
const voidCommit: OrderTrigger = { kind: 'invalidation/commit' };

// INTERFACE.md §3: the 15 cells of the completed table.
const cells: Array<[OrderTrigger, OrderStatus, OrderStatus | 'unchanged' | 'conflict']> = [
  [invalidation, 'PENDING', 'DISCARDED'],
  [invalidation, 'PAID', 'VOID_PENDING'],
  [invalidation, 'DISCARDED', 'unchanged'],
  [invalidation, 'VOID_PENDING', 'unchanged'],
  [invalidation, 'VOIDED', 'conflict'],
  [commit, 'PENDING', 'PAID'],
  [commit, 'PAID', 'unchanged'],
  [commit, 'DISCARDED', 'PAID'],
  [commit, 'VOID_PENDING', 'conflict'],
  [commit, 'VOIDED', 'conflict'],
  [voidCommit, 'PENDING', 'conflict'],
  [voidCommit, 'PAID', 'conflict'],
  [voidCommit, 'DISCARDED', 'conflict'],
  [voidCommit, 'VOID_PENDING', 'VOIDED'],
  [voidCommit, 'VOIDED', 'unchanged'],
];

for (const [trigger, from, expected] of cells) {
  t.test(`${trigger.kind} on ${from}: ${expected}`, async (t) => {
    const before = order(from);
    const outcome = applyTrigger(before, trigger, at);
    if (expected === 'unchanged') {
      t.equal(outcome.result, 'unchanged');
      t.same(outcome.result === 'unchanged' && outcome.order, before, 'the order is answered as it is');
    } else if (expected === 'conflict') {
      t.match(outcome, { result: 'conflict', currentStatus: from });
    } else {
      t.equal(outcome.result, 'changed');
      if (outcome.result !== 'changed') return;
      t.equal(outcome.order.status, expected);
      t.equal(outcome.order.updatedAt, at);
      t.same(outcome.order.history.at(-1), {
        from,
        to: expected,
        trigger: trigger.kind,
        actor: trigger.kind === 'invalidation' ? 'merchant' : 'pos',
        at,
        ...(trigger.kind === 'commit' && from === 'DISCARDED' ? { overridesDiscard: true } : {}),
      });
      t.equal(before.status, from, 'the input order is not changed');
    }
  });
}

t.test('a commit that differs in amount answers amount-mismatch (422), whatever the status', async (t) => {
  for (const status of ['PENDING', 'PAID', 'DISCARDED'] as const) {
    t.same(applyTrigger(order(status), { ...commit, amount: 1499 } as OrderTrigger, at), {
      result: 'amount-mismatch',
      expected: 1500,
      got: 1499,
    });
  }
  t.equal(
    applyTrigger(order('PENDING'), { ...commit, amount: 1500 } as OrderTrigger, at).result,
    'changed',
    'the same amount is fine',
  );
});

t.test('a repeated commit with another authorization code on a PAID order is a conflict', async (t) => {
  t.match(applyTrigger(order('PAID'), { ...commit, authorizationCode: 'OTHER' } as OrderTrigger, at), {
    result: 'conflict',
    currentStatus: 'PAID',
    reason: 'the order is already PAID with another authorizationCode',
  });
});

t.test('a conflict says which transition is not allowed from which status', async (t) => {
  t.same(applyTrigger(order('VOIDED'), commit, at), {
    result: 'conflict',
    currentStatus: 'VOIDED',
    reason: 'commit is not allowed on a VOIDED order',
  });
  t.same(applyTrigger(order('PENDING'), { kind: 'invalidation/commit' }, at), {
    result: 'conflict',
    currentStatus: 'PENDING',
    reason: 'invalidation/commit is not allowed on a PENDING order',
  });
});

t.test('only a commit out of DISCARDED is marked as overriding the discard', async (t) => {
  const paid = applyTrigger(order('PENDING'), commit, at);
  if (paid.result !== 'changed') throw new Error('expected a change');
  t.equal(paid.order.history[0]!.overridesDiscard, undefined);
  const voiding = applyTrigger(order('PAID'), invalidation, at);
  if (voiding.result !== 'changed') throw new Error('expected a change');
  t.equal(voiding.order.history[0]!.overridesDiscard, undefined);
  const overriding = applyTrigger(order('DISCARDED'), commit, at);
  if (overriding.result !== 'changed') throw new Error('expected a change');
  t.equal(overriding.order.history[0]!.overridesDiscard, true);
});

t.test('a commit records its authorization code and time; a discard overridden stays in the history', async (t) => {
  const discarded = applyTrigger(order('PENDING'), { kind: 'invalidation', reason: 'customer left' }, at);
  if (discarded.result !== 'changed') throw new Error('expected a change');
  t.equal(discarded.order.history[0]!.reason, 'customer left');
  const paid = applyTrigger(discarded.order, commit, '2026-11-21T10:06:00.000Z');
  if (paid.result !== 'changed') throw new Error('expected a change');
  t.match(paid.order, { status: 'PAID', authorizationCode: 'A1', paidAt: '2026-11-21T10:04:00.000Z' });
  t.same(
    paid.order.history.map((h) => `${h.from}->${h.to}`),
    ['PENDING->DISCARDED', 'DISCARDED->PAID'],
  );
  t.equal(paid.order.history[1]!.overridesDiscard, true);
});

t.test(
  'a void keeps the payment it voids: authorizationCode and paidAt survive the invalidation and the void commit',
  async (t) => {
    const paid = order('PAID');
    const voidPending = applyTrigger(paid, invalidation, at);
    t.equal(voidPending.result, 'changed');
    if (voidPending.result !== 'changed') return;
    t.match(voidPending.order, { status: 'VOID_PENDING', authorizationCode: 'A1', paidAt: '2026-11-21T10:01:00.000Z' });
    const voided = applyTrigger(voidPending.order, voidCommit, at);
    t.equal(voided.result, 'changed');
    if (voided.result !== 'changed') return;
    t.match(voided.order, { status: 'VOIDED', authorizationCode: 'A1', paidAt: '2026-11-21T10:01:00.000Z' });
    t.ok(
      Object.hasOwn(voided.order, 'authorizationCode') && voided.order.authorizationCode !== undefined,
      'not wiped to undefined',
    );
    // A discard of an unpaid order adds no payment fields.
    const discarded = applyTrigger(order('PENDING'), invalidation, at);
    if (discarded.result === 'changed')
      t.notOk('authorizationCode' in discarded.order, 'no authorizationCode appears on a discard');
  },
);

t.test("a discard's reason is kept in its history entry; a discard without one adds no reason field", async (t) => {
  const withReason = applyTrigger(order('PENDING'), { kind: 'invalidation', reason: 'customer left' }, at);
  if (withReason.result === 'changed') t.equal(withReason.order.history.at(-1)?.reason, 'customer left');
  else t.fail(withReason.result);
  const without = applyTrigger(order('PENDING'), invalidation, at);
  if (without.result === 'changed')
    t.notOk('reason' in without.order.history.at(-1)!, 'no reason: undefined is not written into the history');
  else t.fail(without.result);
});
