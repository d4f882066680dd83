import { seededRandom as seeded } from '../../contracts/common/seeded-random.js';
import t, { type Test } from 'tap';
import { ManualClock } from '../clock.js';
import { defaultConfig } from '../config.js';
import { EmbeddedStore } from '../store/embedded/embedded-store.js';
import { PgStore } from '../store/postgres/pg-store.js';
import { postgresSkip, startPostgres } from '../store/postgres/pg-testing.js';
import type { Store } from '../store/store.js';
import type { AppDeps } from '../app.js';
import { serveApp } from '../testing/test-server.js';

// Exact money through the API, on both stores (issue 27): amounts with at
// most two decimals over the whole documented range, 0.01 to
// 999,999,999.99, generated, in every field that carries money (a
// session's amount and a split share, in a Button session, a Request batch
// and a stop's batch), are accepted; a third decimal is refused; what is
// accepted reads back equal, and credits are counted in exact cents.

const SWEEP = 100_000;
const MAX_CENTS = 99_999_999_999;

/** Whole cents: half uniform over the range, half of every magnitude, the edges first. */
function centsSequence(count: number, seed: number): number[] {
  const random = seeded(seed);
  const edges = [
    1,
    7,
    10,
    99,
    100,
    101,
    57214683,
    1677721601,
    839752794,
    123456789,
    MAX_CENTS,
    MAX_CENTS - 1,
    100_000_000_000 - 100,
  ];
  const out = [...edges];
  while (out.length < count) {
    out.push(
      random() < 0.5
        ? 1 + Math.floor(random() * MAX_CENTS)
        : Math.max(1, Math.min(MAX_CENTS, Math.floor(10 ** (random() * 11)))),
    );
  }
  return out;
}

/** A share of a third of the amount, at least a cent (a share must be above 0). */
const third = (cents: number) => Math.max(1, Math.floor(cents / 3));

/** The JSON a client sends for `cents`: the number as JavaScript writes it. */
const amountOf = (cents: number) => cents / 100;

async function exactMoney(t: Test, store: Store, sharing: AppDeps['sharing'] = 'one-process') {
  const clock = new ManualClock(Date.parse('2026-11-24T12:00:00.000Z'));
  const { api, stop } = await serveApp({
    store,
    sharing,
    clock,
    config: { ...defaultConfig, scryptCost: 1024, logLevel: 'silent' },
  });
  t.teardown(stop);
  const account = (
    await api.post('/console/register', { json: { email: `money-${store.kind}@example.com`, password: '12345678' } })
  ).body;
  const token = account.key.token as string;
  const post = (path: string, json: unknown) => api.post(path, { json, token });
  const agreement = (
    await post('/api/v1/ext/agreements', {
      name: 'Shop',
      currency_reference: 'USD',
      split: true,
      payment_methods: ['card'],
    })
  ).body.agreement_id as string;
  const partner = (await post('/api/v1/ext/partners', { name: 'P', document_id: 'D-1' })).body.partner_id as string;
  await post('/api/v1/ext/split-agreements', { agreement_id: agreement, partner_id: partner });
  const session = (agreementId: string, cents: number, shareCents = cents) => ({
    agreement_id: agreementId,
    amount_reference: amountOf(cents),
    split: { distribution: [{ partner_id: partner, amount_reference: amountOf(shareCents) }] },
  });

  // 1. The sweep: 100,000 generated amounts, each as a session's amount and as its
  // split share, in Request batches of 100 naming an agreement that does not
  // exist. A batch whose amounts all pass validation reaches the handler and
  // answers 404; one amount refused would make it a 400 naming it. Nothing is written.
  const sweep = centsSequence(SWEEP, 27);
  const refusedInSweep: string[] = [];
  for (let i = 0; i < sweep.length; i += 100) {
    const batch = sweep.slice(i, i + 100);
    const answer = await post('/api/v1/ext/payment-sessions/requests', {
      sessions: batch.map((cents) => session('agr_000000000000000000', cents)),
    });
    if (answer.status !== 404)
      refusedInSweep.push(`batch at ${i}: ${answer.status} ${JSON.stringify(answer.body.details?.slice(0, 3))}`);
  }
  t.same(refusedInSweep, [], `${SWEEP} generated amounts as session amounts and split shares: 0 refused`);

  // 2. A third decimal is refused, in each place, and named.
  const thirdDecimal = await post('/api/v1/ext/payment-sessions/requests', {
    sessions: [
      session(agreement, 100),
      { ...session(agreement, 100), amount_reference: 1234567.891 },
      session(agreement, 100),
    ],
  });
  t.equal(thirdDecimal.status, 400);
  t.match(thirdDecimal.body.details, [
    { in: 'body', pointer: '/sessions/1/amount_reference', message: 'must have at most 2 decimal places' },
  ]);
  const share = await post('/api/v1/ext/payment-sessions/buttons', {
    ...session(agreement, 1000),
    split: { distribution: [{ partner_id: partner, amount_reference: 0.005 }] },
  });
  t.equal(share.status, 400);
  t.match(share.body.details, [{ pointer: '/split/distribution/0/amount_reference' }]);

  // 3. Created for real, read back equal: Request batches, Button sessions, a stop's batch.
  const created = centsSequence(1_000, 91);
  const mismatches: string[] = [];
  for (let i = 0; i < created.length; i += 100) {
    const batch = created.slice(i, i + 100);
    const answer = await post('/api/v1/ext/payment-sessions/requests', {
      sessions: batch.map((cents, j) => session(agreement, cents, 1 + ((cents * j) % cents))),
    });
    if (answer.status !== 201) mismatches.push(`batch at ${i}: ${answer.status} ${answer.text.slice(0, 200)}`);
    else {
      for (const [j, made] of (answer.body.sessions as Array<{ amount_reference: number }>).entries()) {
        if (made.amount_reference !== amountOf(batch[j]!))
          mismatches.push(`${amountOf(batch[j]!)} came back as ${made.amount_reference}`);
      }
    }
  }
  const buttons = centsSequence(300, 5);
  const buttonIds: Array<[string, number]> = [];
  for (const cents of buttons) {
    const answer = await post('/api/v1/ext/payment-sessions/buttons', session(agreement, cents, third(cents)));
    if (answer.status !== 201)
      mismatches.push(`button ${amountOf(cents)}: ${answer.status} ${answer.text.slice(0, 200)}`);
    else buttonIds.push([answer.body.session_id as string, cents]);
  }
  for (const [id, cents] of buttonIds.slice(0, 100)) {
    const read = await api.get(`/api/v1/ext/payment-sessions/${id}`, { token });
    if (read.body.amount_reference !== amountOf(cents))
      mismatches.push(`${id}: read ${read.body.amount_reference}, created ${amountOf(cents)}`);
  }
  const stopId = (await post('/api/v1/ext/stops', { name: 'Counter' })).body.stop_id as string;
  const stopCents = centsSequence(100, 13);
  const stopBatch = await post(`/api/v1/ext/stops/${stopId}/sessions`, {
    sessions: stopCents.map((cents) => session(agreement, cents)),
  });
  t.equal(stopBatch.status, 201, "a stop's batch of 100 generated amounts is accepted whole");
  for (const [j, result] of (stopBatch.body.results as Array<{ session: { amount_reference: number } }>).entries()) {
    if (result.session.amount_reference !== amountOf(stopCents[j]!))
      mismatches.push(`stop item ${j}: ${result.session.amount_reference}`);
  }
  t.same(
    mismatches,
    [],
    `${created.length + buttons.length + stopCents.length} sessions created with generated amounts read back equal`,
  );

  // 4. Credits in exact cents: a share equal to the whole amount, and a third, accredited.
  for (const [id, cents] of buttonIds.slice(0, 40)) {
    t.equal((await post(`/control/sessions/${id}/outcome`, { leg: 1, outcome: 'paid' })).status, 200);
    const accredited = await post(`/control/sessions/${id}/outcome`, { leg: 2, outcome: 'accredited' });
    const credits = accredited.body.session_payment.receiver_credits as Array<{
      receiver_type: string;
      gross_amount: number;
      commission: number;
      net_amount: number;
    }>;
    const partnerCents = third(cents);
    const expected = [partnerCents, cents - partnerCents].map((gross) => {
      const commission = Math.floor((gross + 50) / 100); // 1 %, half up, in cents
      return {
        gross_amount: amountOf(gross),
        commission: amountOf(commission),
        net_amount: amountOf(gross - commission),
      };
    });
    t.same(
      credits.map(({ gross_amount, commission, net_amount }) => ({ gross_amount, commission, net_amount })),
      expected,
      `credits of ${amountOf(cents)} in exact cents`,
    );
  }
  const whole = await post('/api/v1/ext/payment-sessions/buttons', session(agreement, 123456789, 123456789));
  t.equal(whole.status, 201, 'a split share equal to the whole amount is accepted');
  await post(`/control/sessions/${whole.body.session_id}/outcome`, { leg: 1, outcome: 'paid' });
  const wholeCredits = (
    await post(`/control/sessions/${whole.body.session_id}/outcome`, { leg: 2, outcome: 'accredited' })
  ).body.session_payment.receiver_credits as Array<{ receiver_type: string; gross_amount: number }>;
  t.same(
    wholeCredits.map((credit) => [credit.receiver_type, credit.gross_amount]),
    [
      ['partner', 1234567.89],
      ['owner', 0],
    ],
    'the owner receives the rest: nothing',
  );
}

t.test('exact money on the embedded store', async (t) => exactMoney(t, await EmbeddedStore.open({ dir: t.testdir() })));
t.test('exact money on PostgreSQL', { skip: postgresSkip() }, async (t) =>
  exactMoney(t, await PgStore.open({ connectionString: startPostgres(t) }), 'instances'),
);
