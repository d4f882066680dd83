import t from 'tap';
import { ManualClock } from '../clock.js';
import { bootOnDirectory, registerAccount, startTestServer } from '../testing/test-server.js';
import type { Account } from '../accounts/account.js';
import type { OutboxEvent } from './events.js';
import { catalog } from './sessions-testkit.js';

const outcome = (
  server: Awaited<ReturnType<typeof startTestServer>>,
  token: string,
  id: string,
  leg: number,
  result: string,
  prefix = '/control',
) => server.api.post(`${prefix}/sessions/${id}/outcome`, { json: { leg, outcome: result }, token });

t.test(
  'control plane admission: leg 1 from every status but paid; leg 2 only on paid with accreditation none or scheduled',
  async (t) => {
    const server = await startTestServer(t);
    const { createSession, token } = await catalog(server);
    const s = await createSession();
    t.equal((await outcome(server, token, s.session_id, 1, 'failed')).body.status, 'failed');
    t.equal(
      (await outcome(server, token, s.session_id, 1, 'expired', '/__test__')).body.status,
      'expired',
      'also under /__test__',
    );
    const early = await outcome(server, token, s.session_id, 2, 'accredited');
    t.equal(early.status, 500);
    t.equal(early.body.code, 'INVALID_FORCED_TRANSITION');
    t.match(early.body.message, /requires the session to be paid/);
    t.equal((await outcome(server, token, s.session_id, 1, 'paid')).body.status, 'paid', 'expired → paid is admitted');
    const again = await outcome(server, token, s.session_id, 1, 'failed');
    t.equal(again.status, 500);
    t.match(again.body.message, /already paid/);
    const accredited = await outcome(server, token, s.session_id, 2, 'accredited');
    t.equal(accredited.body.accreditation.status, 'accredited');
    const twice = await outcome(server, token, s.session_id, 2, 'accreditation_failed');
    t.equal(twice.status, 500);
    t.match(twice.body.message, /already ended/);
    const wrongLeg = await outcome(server, token, s.session_id, 1, 'accredited');
    t.equal(wrongLeg.status, 500, 'a leg 2 outcome on leg 1 is well formed but not admitted');
    const malformed = await server.api.post(`/control/sessions/${s.session_id}/outcome`, {
      json: { leg: 3, outcome: 'paid' },
      token,
    });
    t.equal(malformed.status, 400, 'a malformed body is a 400');
    t.equal(
      (
        await server.api.post('/control/sessions/ses_000000000000000000/outcome', {
          json: { leg: 1, outcome: 'paid' },
          token,
        })
      ).status,
      404,
    );
  },
);

t.test(
  'accreditation credits each receiver with 1 % commission, inside session_payment on the status read',
  async (t) => {
    const server = await startTestServer(t);
    const { split, partnerA, partnerB, account, post, token } = await catalog(server);
    const s = await post('/api/v1/ext/payment-sessions/buttons', {
      agreement_id: split.agreement_id,
      amount_reference: 100.01,
      split: {
        distribution: [
          { partner_id: partnerA.partner_id, amount_reference: 33.33 },
          { partner_id: partnerB.partner_id, amount_reference: 0.5 },
        ],
      },
    });
    await outcome(server, token, s.session_id, 1, 'paid');
    await outcome(server, token, s.session_id, 2, 'accredited');
    const read = (await server.api.get(`/payment-sessions/${s.session_id}`, { token })).body;
    t.same(read.session_payment.receiver_credits, [
      {
        receiver_id: partnerA.partner_id,
        receiver_type: 'partner',
        gross_amount: 33.33,
        commission: 0.33,
        net_amount: 33,
        status: 'credited',
      },
      {
        receiver_id: partnerB.partner_id,
        receiver_type: 'partner',
        gross_amount: 0.5,
        commission: 0.01,
        net_amount: 0.49,
        status: 'credited',
      },
      {
        receiver_id: account.account_id,
        receiver_type: 'owner',
        gross_amount: 66.18,
        commission: 0.66,
        net_amount: 65.52,
        status: 'credited',
      },
    ]);
    t.same(read.session_payment.receiver_credits_summary, {
      gross_amount: 100.01,
      commissions: 1,
      net_amount: 99.01,
      total_credits: 3,
    });
  },
);

t.test('each event is stored with the change that caused it and handed to the sink after it is durable', async (t) => {
  const seen: OutboxEvent[] = [];
  const server = await startTestServer(t, {}, undefined, { emitted: (events) => seen.push(...events) });
  const { split, partnerA, post, token, account } = await catalog(server);
  const s = await post('/api/v1/ext/payment-sessions/buttons', {
    agreement_id: split.agreement_id,
    amount_reference: 10,
    webhook_url: 'https://example.com/h',
    split: { distribution: [{ partner_id: partnerA.partner_id, amount_reference: 4 }] },
  });
  await outcome(server, token, s.session_id, 1, 'failed');
  await outcome(server, token, s.session_id, 1, 'paid');
  await outcome(server, token, s.session_id, 2, 'accreditation_failed');
  t.same(
    seen.map((e) => [e.seq, e.event]),
    [
      [1, 'payment_session.created'],
      [2, 'payment_session.paid'],
      [3, 'payment_session.accreditation_to_recipient_failed'],
      [4, 'payment_session.accreditation_to_recipient_failed'],
    ],
    'failed emits none; one failed-credit event per receiver, in order',
  );
  const stored = await server.store.list<OutboxEvent>('events', {
    where: { session_id: s.session_id },
    orderBy: { field: 'seq', direction: 'asc' },
  });
  t.same(
    stored.map((e) => e.event_id),
    seen.map((e) => e.event_id),
    'every handed-out event is in the outbox',
  );
  const paid = JSON.parse(stored[1]!.body);
  t.same(Object.keys(paid), ['event', 'event_id', 'created_at', 'data']);
  t.same(paid.data, {
    session_id: s.session_id,
    status: 'paid',
    session_payment: { id: s.session_payment.id, origin: 'button', amount_reference: 10 },
  });
  t.match(JSON.parse(stored[3]!.body).data, { receiver_id: account.account_id });
  t.match(stored[0]!.idempotency_key, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  t.equal(stored[0]!.webhook_url, 'https://example.com/h');

  const another = await post('/api/v1/ext/payment-sessions/buttons', {
    agreement_id: split.agreement_id,
    amount_reference: 10,
  });
  await outcome(server, token, another.session_id, 1, 'paid');
  await outcome(server, token, another.session_id, 2, 'accredited');
  const accredited = JSON.parse(seen.at(-1)!.body);
  t.equal(accredited.event, 'payment_session.accredited');
  t.same(
    Object.keys(accredited.data),
    ['session_id', 'status', 'session_payment', 'receiver_credits', 'receiver_credits_summary'],
    'credits sit beside session_payment in the event',
  );
});

t.test(
  'paying through the page schedules leg 2; advancing the clock fires it once; forcing leg 2 cancels it',
  async (t) => {
    const server = await startTestServer(t, { accreditationDelayMs: 5000 });
    const { createSession, token, account } = await catalog(server);
    const acc = (await server.store.get<Account>('accounts', account.account_id))!;
    const s = await createSession();
    const paid = await server.app.services.sessions.payViaPage(acc, s.session_id, {
      outcome: 'paid',
      leg2: 'accredited',
    });
    t.same(paid.accreditation, {
      status: 'scheduled',
      scheduled_for: new Date(server.clock.now() + 5000).toISOString(),
      outcome: 'accredited',
    });
    t.match((await server.api.get(`/payment-sessions/${s.session_id}`, { token })).body.accreditation, {
      status: 'scheduled',
      scheduled_for: String,
    });
    await server.api.post('/control/clock/advance', { json: { ms: 4999 }, token });
    t.equal(
      (await server.api.get(`/payment-sessions/${s.session_id}`, { token })).body.accreditation.status,
      'scheduled',
      'not yet',
    );
    await server.api.post('/control/clock/advance', { json: { ms: 1 }, token });
    const done = (await server.api.get(`/payment-sessions/${s.session_id}`, { token })).body;
    t.equal(done.accreditation.status, 'accredited', 'fired by the clock advance');
    t.equal(await server.store.count('schedules'), 0, 'and the schedule is gone');
    t.equal(await server.app.jobs.scheduler.runDue(), 0, 'it does not fire twice');

    const cancelled = await createSession();
    await server.app.services.sessions.payViaPage(acc, cancelled.session_id, { outcome: 'paid', leg2: 'accredited' });
    const forced = await outcome(server, token, cancelled.session_id, 2, 'accreditation_failed');
    t.equal(forced.body.accreditation.status, 'failed');
    await server.api.post('/control/clock/advance', { json: { ms: 10_000 }, token });
    t.equal(
      (await server.api.get(`/payment-sessions/${cancelled.session_id}`, { token })).body.accreditation.status,
      'failed',
      'the cancelled schedule never fires',
    );
    const events = await server.store.list<OutboxEvent>('events', { where: { session_id: cancelled.session_id } });
    t.notOk(
      events.some((e) => e.event === 'payment_session.accredited'),
      'no contradictory accredited event',
    );
  },
);

t.test('a scheduled accreditation pending at a restart fires once after it', async (t) => {
  const dir = t.testdir();
  const clock = new ManualClock();
  const boot = () => bootOnDirectory(dir, clock);
  const first = await boot();
  const account = await registerAccount(first.api);
  const token = account.key.token;
  const agreement = (
    await first.api.post('/api/v1/ext/agreements', {
      json: { name: 'A', currency_reference: 'USD', split: false, payment_methods: ['card'] },
      token,
    })
  ).body;
  const s = (
    await first.api.post('/api/v1/ext/payment-sessions/buttons', {
      json: { agreement_id: agreement.agreement_id, amount_reference: 5 },
      token,
    })
  ).body;
  await first.app.services.sessions.payViaPage(
    (await first.store.get<Account>('accounts', account.account_id))!,
    s.session_id,
    { outcome: 'paid', leg2: 'accredited' },
  );
  await first.stop();

  clock.advance(6000);
  const second = await boot();
  t.teardown(second.stop);
  t.equal(await second.app.jobs.scheduler.runDue(), 1, 'the schedule survived the restart and fired');
  t.equal(await second.app.jobs.scheduler.runDue(), 0, 'once');
  const read = await second.api.get(`/payment-sessions/${s.session_id}`, { token });
  t.equal(read.body.accreditation.status, 'accredited');
  const accredited = await second.store.list<OutboxEvent>('events', {
    where: { session_id: s.session_id, event: 'payment_session.accredited' },
  });
  t.equal(accredited.length, 1, 'one accredited event');
});

t.test("reset deletes only the caller's data and sets its clock back; keys keep working", async (t) => {
  const server = await startTestServer(t);
  const mine = await catalog(server);
  const theirs = await catalog(server);
  const mySession = await mine.createSession();
  const theirSession = await theirs.createSession();
  await server.api.post('/control/clock/advance', { json: { ms: 60_000 }, token: mine.token });
  const reset = await server.api.post('/__test__/reset', { token: mine.token });
  t.equal(reset.status, 200);
  t.ok(reset.body.deleted >= 7, `deleted ${reset.body.deleted} records`);
  t.equal((await server.api.get(`/payment-sessions/${mySession.session_id}`, { token: mine.token })).status, 404);
  t.equal(
    (await server.api.get(`/payment-sessions/${theirSession.session_id}`, { token: theirs.token })).status,
    200,
    'the other account is untouched',
  );
  const outcomesOf = (accountId: string) => server.store.list('webhook_outcomes', { where: { account_id: accountId } });
  t.same(await outcomesOf(mine.account.account_id), [], 'its webhook outcomes went too');
  t.ok((await outcomesOf(theirs.account.account_id)).length > 0, 'the other account keeps its own');
  t.equal((await server.api.get('/control/clock', { token: mine.token })).body.offset_ms, 0);
  t.same((await server.api.get('/api/v1/ext/stops', { token: mine.token })).body, { data: [] });
});
