import t from 'tap';
import { decidePayment, echoOf, outcomeWords } from './payment-decision.js';

// The payment page's rules without a server: which sessions can be paid,
// which method and fields the agreement asks for, what each magic key
// means (INTERFACE.md §8), and what a refused form shows again.

const card = {
  'card.card_holder': 'Ada Lovelace',
  'card.card_number': '4242424242424242',
  'card.card_expiry': '12/29',
  'card.card_cvv': '123',
};

t.test('only a pending session can be paid: 409 otherwise, whatever the form', async (t) => {
  for (const status of ['paid', 'expired', 'failed'])
    t.same(decidePayment({ ...card, payment_key: '000000' }, status, ['card']), {
      kind: 'refused',
      status: 409,
      code: 'SESSION_NOT_PAYABLE',
      message: `this payment is ${status}, not pending`,
    });
});

t.test("the method: the agreement's first when none is chosen; one it does not allow is refused", async (t) => {
  t.match(decidePayment({ ...card, payment_key: '000000' }, 'pending', ['card', 'wallet']), {
    kind: 'pay',
    method: 'card',
  });
  t.same(decidePayment({ method: 'transfer', payment_key: '000000' }, 'pending', ['card', 'wallet']), {
    kind: 'refused',
    status: 400,
    code: 'VALIDATION_FAILED',
    message: "method must be one of the agreement's: card, wallet",
  });
  t.match(decidePayment({ payment_key: '000000' }, 'pending', []), { kind: 'refused', status: 400 }, 'none allowed');
});

t.test(
  "the method's fields: named method.field by the page, bare by a JSON client; blanks count as missing",
  async (t) => {
    t.same(decidePayment({ method: 'wallet', payment_key: '000000' }, 'pending', ['wallet']), {
      kind: 'refused',
      status: 400,
      code: 'VALIDATION_FAILED',
      message: 'fill in: Wallet e-mail or id',
    });
    t.match(decidePayment({ method: 'wallet', wallet_id: 'a@b.c', payment_key: '000000' }, 'pending', ['wallet']), {
      kind: 'pay',
    });
    t.match(
      decidePayment({ method: 'wallet', 'wallet.wallet_id': '  ', payment_key: '000000' }, 'pending', ['wallet']),
      { kind: 'refused', message: 'fill in: Wallet e-mail or id' },
    );
    t.match(
      decidePayment({ method: 'card', 'card.card_holder': 'A', payment_key: '000000' }, 'pending', ['card']),
      { message: /^fill in: Card number, Expiry \(MM\/YY\), / },
      'every missing field named, in the page order',
    );
    t.match(decidePayment({ ...card, payment_key: ' ' }, 'pending', ['card']), { message: 'enter the payment key' });
  },
);

t.test('the magic keys, and the accreditation the payer chose', async (t) => {
  const pay = (key: string, leg2?: string) =>
    decidePayment({ ...card, payment_key: key, ...(leg2 ? { leg2 } : {}) }, 'pending', ['card']);
  t.match(pay('000000'), {
    kind: 'pay',
    result: { outcome: 'paid' },
    leg2: 'accredited',
    title: 'Payment accepted',
    message: 'Paid. As you chose, the accreditation to the merchant will succeed.',
  });
  t.match(pay(' 000000 ', 'accreditation_failed'), {
    leg2: 'accreditation_failed',
    message: 'Paid. As you chose, the accreditation to the merchant will fail.',
  });
  t.match(pay('000000', 'something else'), { leg2: 'accredited' }, 'anything but accreditation_failed succeeds');
  t.match(pay('111111'), {
    result: { outcome: 'failed', reason: 'insufficient_funds' },
    title: 'Payment not completed',
    message: 'The payment failed: insufficient funds.',
  });
  t.match(pay('222222'), { message: 'The payment failed: rejected by the issuer.' });
  t.match(pay('333333'), { result: { outcome: 'expired' }, message: 'The session expired.' });
  t.match(pay('123456'), {
    result: { reason: 'invalid_key' },
    message: 'The payment failed: the payment key is not valid.',
  });
  t.same(outcomeWords({ outcome: 'expired' }, 'accredited'), {
    title: 'Payment not completed',
    message: 'The session expired.',
  });
});

t.test(
  'a refused form shows again what was chosen and typed, never the key, the card number or the code',
  async (t) => {
    t.same(
      echoOf({
        ...card,
        method: 'card',
        leg2: 'accredited',
        payment_key: '000000',
        stray: 'x',
        'wallet.wallet_id': undefined,
      }),
      {
        method: 'card',
        leg2: 'accredited',
        fields: { 'card.card_holder': 'Ada Lovelace', 'card.card_expiry': '12/29' },
      },
    );
    t.same(echoOf({}), { fields: {} });
  },
);
