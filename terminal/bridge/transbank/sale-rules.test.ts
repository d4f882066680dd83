import t from 'tap';
import {
  closeHappened,
  lastSaleVerdict,
  MAX_AMOUNT,
  refundAnswer,
  saleAmount,
  saleAnswer,
  totalsAnswer,
} from './sale-rules.js';

// The Transbank bridge's decisions, alone: which orders a POS carries, and
// what each answer of the POS proves.

const asked = {
  kind: 'sale' as const,
  orderId: 'o-1',
  ticket: '00000A',
  amount: 15_000,
  startedAt: '2026-11-25T10:00:00.000Z',
};
const approved = {
  responseCode: '00',
  ticket: '00000A',
  amount: 15_000,
  authorizationCode: '123456',
  operationNumber: '000042',
  cardType: 'CR',
  last4Digits: '6677',
};

t.test('which orders a POS can sell: whole CLP of at most 9 digits, nothing truncated or converted', async (t) => {
  t.same(saleAmount({ amount: 15_000, currency: 'CLP' }), { amount: 15_000 });
  t.same(saleAmount({ amount: MAX_AMOUNT, currency: 'CLP' }), { amount: 999_999_999 }, 'the largest');
  t.same(saleAmount({ amount: 1, currency: 'CLP' }), { amount: 1 }, 'the smallest');
  t.match(saleAmount({ amount: 1_000_000_000, currency: 'CLP' }), {
    reason: 'its amount 1000000000 has more than 9 digits, the most a POS Integrado sale carries',
  });
  t.match(saleAmount({ amount: 1500, currency: 'USD' }), {
    reason: 'its currency is USD; a Transbank POS sells in Chilean pesos (CLP) only',
  });
  t.match(saleAmount({ amount: 10.5, currency: 'CLP' }), {
    reason: 'its amount 10.5 has a fraction; a Transbank POS sells whole pesos',
  });
  t.match(saleAmount({ amount: 0, currency: 'CLP' }), { reason: 'its amount 0 is not positive' });
  t.match(saleAmount({ amount: -3, currency: 'CLP' }), { reason: /not positive/ });
});

t.test("a sale's answer: approved with its details, or declined with its code", async (t) => {
  t.same(saleAnswer(asked, approved), {
    kind: 'approved',
    authorizationCode: '123456',
    operationNumber: '000042',
    cardType: 'CR',
    last4Digits: '6677',
  });
  t.same(saleAnswer(asked, { ...approved, responseCode: '05' }), { kind: 'declined', responseCode: '05' });
  t.same(
    saleAnswer(asked, { ...approved, operationNumber: null, cardType: null, last4Digits: null }),
    { kind: 'approved', authorizationCode: '123456', operationNumber: '', cardType: null, last4Digits: null },
    'empty details are kept as empty',
  );
  t.same(saleAnswer(asked, { ...approved, amount: 15_001 }), {
    kind: 'unknown',
    reason: 'the POS approved ticket 00000A for 15001 CLP in its answer, but ticket 00000A was sent for 15000 CLP',
  });
  t.same(saleAnswer(asked, { ...approved, ticket: '00000B' }), {
    kind: 'unknown',
    reason: 'the POS approved ticket 00000B for 15000 CLP in its answer, but ticket 00000A was sent for 15000 CLP',
  });
  t.same(saleAnswer(asked, { ...approved, authorizationCode: null }), {
    kind: 'unknown',
    reason: 'the POS approved ticket 00000A without an authorization code',
  });
  t.same(saleAnswer(asked, { ...approved, authorizationCode: '' }), {
    kind: 'unknown',
    reason: 'the POS approved ticket 00000A without an authorization code',
  });
});

t.test(
  'the last sale after a lost answer: the same ticket is the sale, another ticket or none means it was not made, anything else is held',
  async (t) => {
    t.match(lastSaleVerdict(asked, approved), { kind: 'approved', authorizationCode: '123456' });
    t.same(lastSaleVerdict(asked, { ...approved, ticket: '000009' }), {
      kind: 'not-made',
      why: "the POS's last sale is ticket 000009, not 00000A",
    });
    t.same(lastSaleVerdict(asked, { responseCode: '11', amount: 0 }), {
      kind: 'not-made',
      why: 'the POS has made no sale since it started',
    });
    t.same(lastSaleVerdict(asked, { responseCode: '02', amount: 0 }), {
      kind: 'unknown',
      reason: 'asked for its last sale, the POS answered 02 (the authoriser did not answer)',
    });
    t.same(lastSaleVerdict(asked, { ...approved, amount: 1 }), {
      kind: 'unknown',
      reason: 'the POS approved ticket 00000A for 1 CLP in its last sale, but ticket 00000A was sent for 15000 CLP',
    });
  },
);

t.test("a refund's answer: 00 refunds, 04 proves an earlier refund, 08 and the rest are held", async (t) => {
  t.same(refundAnswer('00'), { kind: 'refunded', note: 'refunded by the POS' });
  t.same(refundAnswer('04'), {
    kind: 'refunded',
    note: 'the POS had already refunded it (a refund sent again after a lost answer)',
  });
  t.same(refundAnswer('08'), {
    kind: 'refused',
    reason:
      'the POS cannot refund a debit sale (08 (a debit sale cannot be refunded)): refund the customer another way, then discard this, or resend it',
  });
  t.same(refundAnswer('05'), {
    kind: 'refused',
    reason: 'the POS refused the refund: 05 (no such transaction to refund)',
  });
});

t.test("a close happened when the POS's batch is empty", async (t) => {
  t.equal(closeHappened({ transactionCount: 0, total: 0 }), true);
  t.equal(closeHappened({ transactionCount: 1, total: 0 }), false);
  t.equal(closeHappened({ transactionCount: 0, total: 5 }), false);
  t.equal(closeHappened({ transactionCount: 2, total: 3000 }), false);
});

t.test("the POS's totals: its count and total, or why it could not give them", async (t) => {
  t.same(totalsAnswer({ responseCode: '00', transactionCount: 3, total: 4500 }), { transactionCount: 3, total: 4500 });
  t.throws(() => totalsAnswer({ responseCode: '01', transactionCount: 0, total: 0 }), {
    message: /^the POS could not give its totals: /,
  });
  t.throws(() => totalsAnswer({ responseCode: '0', transactionCount: 0, total: 0 }), Error, 'only 00 is success');
});
