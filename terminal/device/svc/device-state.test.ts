import t from 'tap';
import { answer, approve, closeBatch, decline, newDevice, voidOrder } from './device-state.js';

t.test('the device answers poll, charge, void, close, next record and confirm as INTERFACE.md §9 says', async (t) => {
  let state = newDevice('SN1', '2.1.0');
  t.same(answer(state, { code: '0100' }).reply, {
    code: '0110',
    serial: 'SN1',
    firmware: '2.1.0',
    batchOpen: false,
    pendingCount: 0,
  });
  ({ state } = answer(state, { code: '0300', orderId: 'o1', amount: 1000, currency: 'EUR' }));
  t.same(
    answer(state, { code: '0300', orderId: 'o1', amount: 1000, currency: 'EUR' }).state.charges.length,
    1,
    'asked twice, charged once',
  );
  t.same(answer(state, { code: '0250' }).reply, { code: '0260' }, 'nothing to report before approval');
  state = approve(state, 'o1', '2026-11-21T10:00:00.000Z', 'AUTH1');
  t.same(answer(state, { code: '0250' }).reply, {
    code: '0210',
    seq: 1,
    orderId: 'o1',
    amount: 1000,
    currency: 'EUR',
    authorizationCode: 'AUTH1',
    paidAt: '2026-11-21T10:00:00.000Z',
  });
  t.match(answer(state, { code: '0100' }).reply, { batchOpen: true, pendingCount: 1 });
  ({ state } = answer(state, { code: '0320', orderId: 'o1' }));
  state = voidOrder(state, 'o1', '2026-11-21T10:05:00.000Z');
  state = closeBatch(state, '2026-11-21T18:00:00.000Z');
  t.same(
    state.records.map((r) => `${r.seq}:${r.code}`),
    ['1:0210', '2:0230', '3:0520'],
  );
  t.same(state.records[2], {
    code: '0520',
    seq: 3,
    batchNumber: 'B0001',
    transactionCount: 1,
    closedAt: '2026-11-21T18:00:00.000Z',
    currencyReference: 'EUR',
    terminal: 'SN1',
    debitBatch: 'D0001',
  });
  const confirmed = answer(state, { code: '0270', seq: 1 });
  t.same(confirmed.reply, { code: '0280', seq: 1 });
  t.same(
    confirmed.state.records.map((r) => r.seq),
    [2, 3],
    'a record leaves only when confirmed',
  );
  t.same(answer(state, { code: '0110', serial: 'x', firmware: 'y', batchOpen: false, pendingCount: 0 }).reply, {
    code: '0990',
    errorCode: '01',
    text: 'unexpected message 0110',
  });
  t.same(
    decline(answer(newDevice('SN2'), { code: '0300', orderId: 'o2', amount: 1, currency: 'USD' }).state, 'o2').charges,
    [],
    'a declined charge leaves no record',
  );
});

t.test(
  'a charge asked for an order the device already approved is refused with rc 94, never approved twice',
  async (t) => {
    let state = answer(newDevice('SN1'), { code: '0300', orderId: 'o1', amount: 500, currency: 'USD' }).state;
    state = approve(state, 'o1', '2026-11-21T10:00:00.000Z', 'AUTH1');
    const again = answer(state, { code: '0300', orderId: 'o1', amount: 500, currency: 'USD' });
    t.same(again.reply, { code: '0310', rc: '94' });
    t.same(again.state.charges, [], 'nothing waits to be approved again');
    t.same(approve(again.state, 'o1', '2026-11-21T10:01:00.000Z', 'AUTH2').records.length, 1, 'still one sale');
  },
);

t.test(
  'a close carrying the id of the last one carried out is answered and not repeated; another id closes',
  async (t) => {
    let state = newDevice('SN1');
    ({ state } = answer(state, { code: '0300', orderId: 'o1', amount: 100, currency: 'USD' }));
    state = approve(state, 'o1', '2026-11-21T10:00:00.000Z', 'A');
    const first = answer(state, { code: '0500', closeId: 'C1' });
    t.same(first.reply, { code: '0510', rc: '00' });
    t.equal(first.state.nextBatch, 2);
    t.equal(first.state.lastCloseId, 'C1');
    const repeat = answer(first.state, { code: '0500', closeId: 'C1' });
    t.same(repeat.reply, { code: '0510', rc: '00' }, 'the same answer');
    t.equal(repeat.state, first.state, 'and nothing else: no second batch');
    t.equal(answer(first.state, { code: '0500', closeId: 'C2' }).state.nextBatch, 3, 'a new close');
    t.equal(answer(first.state, { code: '0500' }).state.nextBatch, 3, "an older host's close without id always closes");
    t.equal(answer(first.state, { code: '0500' }).state.lastCloseId, null);
  },
);

t.test('what the device says of an ask: pending, done, declined or unknown, for charges and voids', async (t) => {
  let state = newDevice('SN1');
  const known = (kind: 'charge' | 'void', orderId: string) =>
    (answer(state, { code: '0150', kind, orderId }).reply as { state: string }).state;
  t.equal(known('charge', 'o1'), 'unknown');
  ({ state } = answer(state, { code: '0300', orderId: 'o1', amount: 100, currency: 'USD' }));
  t.equal(known('charge', 'o1'), 'pending');
  t.same(answer(state, { code: '0150', kind: 'charge', orderId: 'o1' }).reply, {
    code: '0160',
    kind: 'charge',
    orderId: 'o1',
    state: 'pending',
  });
  state = approve(state, 'o1', '2026-11-21T10:00:00.000Z', 'A');
  t.equal(known('charge', 'o1'), 'done');
  ({ state } = answer(state, { code: '0300', orderId: 'o2', amount: 100, currency: 'USD' }));
  state = decline(state, 'o2');
  t.equal(known('charge', 'o2'), 'declined');
  t.equal(decline(state, 'o9'), state, 'declining what was never asked changes nothing');
  ({ state } = answer(state, { code: '0300', orderId: 'o2', amount: 100, currency: 'USD' }));
  t.equal(known('charge', 'o2'), 'pending', 'asked again after a decline: the cashier tries another card');
  t.equal(known('void', 'o1'), 'unknown');
  ({ state } = answer(state, { code: '0320', orderId: 'o1' }));
  t.equal(known('void', 'o1'), 'pending');
  state = voidOrder(state, 'o1', '2026-11-21T10:05:00.000Z');
  t.equal(known('void', 'o1'), 'done');
});
