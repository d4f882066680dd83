import t, { type Test } from 'tap';
import type { Account } from '../accounts/account.js';
import { AppError, appError, isAppError } from '../errors.js';
import { buildSession, itemAnswer, type SessionInput } from './session-input.js';
import { splitLinkKey } from './record-keys.js';

// The session a payer is charged for is built here from the body and the
// account's catalog (INTERFACE.md §5): these tests hold what a caller sees for
// each input, against a catalog kept in a map.

const account = { account_id: 'acc_1' } as Account;
const NOW = '2026-11-21T10:00:00.000Z';

function catalog(split = true) {
  const records = new Map<string, Record<string, unknown>>([
    ['agreements/agr_1', { agreement_id: 'agr_1', account_id: 'acc_1', currency_reference: 'CLP', split }],
    ['agreements/agr_other', { agreement_id: 'agr_other', account_id: 'acc_2', currency_reference: 'CLP', split }],
    ['partners/ptn_1', { partner_id: 'ptn_1', account_id: 'acc_1' }],
    ['partners/ptn_2', { partner_id: 'ptn_2', account_id: 'acc_1' }],
    ['partners/ptn_unlinked', { partner_id: 'ptn_unlinked', account_id: 'acc_1' }],
    ['partners/ptn_other', { partner_id: 'ptn_other', account_id: 'acc_2' }],
    [`split_links/${splitLinkKey('agr_1', 'ptn_1')}`, {}],
    [`split_links/${splitLinkKey('agr_1', 'ptn_2')}`, {}],
  ]);
  return { get: async (collection: string, id: string) => records.get(`${collection}/${id}`) as never };
}

const build = (input: Partial<SessionInput>, split = true) =>
  buildSession(catalog(split), account, { agreement_id: 'agr_1', amount_reference: 100, ...input }, 'button', NOW);

async function refusal(t: Test, input: Partial<SessionInput>, split = true): Promise<AppError<'SESSION_ITEM_REFUSED'>> {
  const error = await build(input, split).then(
    () => t.fail('expected a refusal'),
    (caught: unknown) => caught,
  );
  if (!isAppError(error, 'SESSION_ITEM_REFUSED')) throw error;
  return error;
}

t.test(
  "a valid body becomes a pending session in cents, with the agreement's currency and the defaults INTERFACE.md fixes",
  async (t) => {
    const session = await build({ amount_reference: 1234.56 });
    t.match(session, {
      session_id: /^ses_/,
      payment_id: /^pay_/,
      account_id: 'acc_1',
      status: 'pending',
      agreement_id: 'agr_1',
      amount_cents: 123_456,
      currency_reference: 'CLP',
      due_date_session: null,
      due_date_reached_behavior: 'expire',
      webhook_url: null,
      description: null,
      created_at: NOW,
      origin: 'button',
      accreditation: { status: 'none' },
      event_seq: 0,
    });
    t.same(session.distribution, []);
  },
);

t.test(
  'what the body sets is kept: the due date normalised to UTC, keep_active, the webhook, the description',
  async (t) => {
    const session = await build({
      due_date_session: '2026-11-22T10:00:00-03:00',
      due_date_reached_behavior: 'keep_active',
      webhook_url: 'https://example.com/hook',
      description: 'mesa 4',
      currency_reference: 'CLP',
    });
    t.equal(session.due_date_session, '2026-11-22T13:00:00.000Z');
    t.equal(session.due_date_reached_behavior, 'keep_active');
    t.equal(session.webhook_url, 'https://example.com/hook');
    t.equal(session.description, 'mesa 4');
  },
);

t.test('a split is kept in cents, partner by partner, and may add up to the whole amount', async (t) => {
  const session = await build({
    amount_reference: 100,
    split: {
      distribution: [
        { partner_id: 'ptn_1', amount_reference: 60.5 },
        { partner_id: 'ptn_2', amount_reference: 39.5 },
      ],
    },
  });
  t.same(session.distribution, [
    { partner_id: 'ptn_1', amount_cents: 6050 },
    { partner_id: 'ptn_2', amount_cents: 3950 },
  ]);
});

t.test('a distribution over the amount by one cent is refused at /split/distribution', async (t) => {
  const error = await refusal(t, {
    amount_reference: 100,
    split: {
      distribution: [
        { partner_id: 'ptn_1', amount_reference: 60.5 },
        { partner_id: 'ptn_2', amount_reference: 39.51 },
      ],
    },
  });
  t.equal(error.extra?.pointer, '/split/distribution');
  t.match(itemAnswer(error), {
    code: 'VALIDATION_FAILED',
    details: [{ in: 'body', message: /adds up to more than amount_reference/ }],
  });
  t.equal(
    itemAnswer(error).details?.[0]?.pointer,
    '/split/distribution',
    "alone, the pointer is the field's, with nothing before it",
  );
});

t.test("another currency than the agreement's is refused, naming the agreement's", async (t) => {
  const error = await refusal(t, { currency_reference: 'USD' });
  t.equal(error.extra?.pointer, '/currency_reference');
  t.match(itemAnswer(error), {
    code: 'VALIDATION_FAILED',
    details: [{ pointer: '/currency_reference', message: "must be the agreement's currency, CLP" }],
  });
});

t.test("an agreement or partner that is unknown or another account's is a 404 naming where, never a 400", async (t) => {
  for (const agreement_id of ['agr_missing', 'agr_other']) {
    const error = await refusal(t, { agreement_id });
    t.equal(error.extra?.pointer, '/agreement_id');
    t.match(
      itemAnswer(error),
      { code: 'NOT_FOUND', message: `agreement ${agreement_id} not found` },
      "alone, the message is the store's",
    );
    t.match(
      itemAnswer(error, '/sessions/3'),
      { code: 'NOT_FOUND', message: `/sessions/3/agreement_id: agreement ${agreement_id} not found` },
      'in a batch, it names the item',
    );
  }
  for (const partner_id of ['ptn_missing', 'ptn_other']) {
    const error = await refusal(t, {
      split: {
        distribution: [
          { partner_id: 'ptn_1', amount_reference: 1 },
          { partner_id, amount_reference: 1 },
        ],
      },
    });
    t.equal(error.extra?.pointer, '/split/distribution/1/partner_id');
    t.equal(itemAnswer(error).code, 'NOT_FOUND');
    t.equal(itemAnswer(error).message, `partner ${partner_id} not found`);
  }
});

t.test('a partner twice in a distribution is refused where it appears the second time', async (t) => {
  const error = await refusal(t, {
    split: {
      distribution: [
        { partner_id: 'ptn_1', amount_reference: 1 },
        { partner_id: 'ptn_1', amount_reference: 1 },
      ],
    },
  });
  t.equal(error.extra?.pointer, '/split/distribution/1/partner_id');
  t.match(itemAnswer(error, '/sessions/0'), {
    code: 'VALIDATION_FAILED',
    details: [
      {
        pointer: '/sessions/0/split/distribution/1/partner_id',
        message: 'a partner may appear once in a distribution',
      },
    ],
  });
});

t.test(
  'on a split agreement an unlinked partner is refused; with split false the distribution is taken as sent (INTERFACE.md §0)',
  async (t) => {
    const error = await refusal(t, { split: { distribution: [{ partner_id: 'ptn_unlinked', amount_reference: 1 }] } });
    t.equal(error.extra?.pointer, '/split/distribution/0/partner_id');
    t.match(itemAnswer(error), {
      details: [{ message: 'the partner has no split-reception agreement with this agreement' }],
    });
    const session = await build(
      { split: { distribution: [{ partner_id: 'ptn_unlinked', amount_reference: 1 }] } },
      false,
    );
    t.same(session.distribution, [{ partner_id: 'ptn_unlinked', amount_cents: 100 }]);
  },
);

t.test("a store failure while reading the catalog passes through unchanged, not as the caller's fault", async (t) => {
  const away = appError('STORE_UNAVAILABLE', 'the database is away');
  const tx = { get: async () => Promise.reject(away) };
  await t.rejects(buildSession(tx, account, { agreement_id: 'agr_1', amount_reference: 1 }, 'button', NOW), away);
  const partnersAway = catalog();
  const failing = {
    get: async (collection: string, id: string) =>
      collection === 'partners' ? Promise.reject(away) : partnersAway.get(collection, id),
  };
  await t.rejects(
    buildSession(
      failing,
      account,
      {
        agreement_id: 'agr_1',
        amount_reference: 1,
        split: { distribution: [{ partner_id: 'ptn_1', amount_reference: 1 }] },
      },
      'button',
      NOW,
    ),
    away,
  );
});
