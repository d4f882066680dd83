import t from 'tap';
import { registerAccount, startTestServer } from '../testing/test-server.js';
import { catalog } from './sessions-testkit.js';

t.test('agreements, partners and split-reception agreements are created with their ids', async (t) => {
  const server = await startTestServer(t);
  const { split, partnerA, token } = await catalog(server);
  t.match(split, {
    agreement_id: /^agr_/,
    name: 'Marketplace',
    currency_reference: 'USD',
    split: true,
    payment_methods: ['card', 'wallet'],
  });
  t.match(partnerA, { partner_id: /^ptn_/, document_id: 'DOC-A' });
  const again = await server.api.post('/api/v1/ext/split-agreements', {
    json: { agreement_id: split.agreement_id, partner_id: partnerA.partner_id },
    token,
  });
  t.equal(again.status, 409, 'a partner links to an agreement once');
  const bad = await server.api.post('/api/v1/ext/agreements', {
    json: { name: 'x', currency_reference: 'USD', split: true, payment_methods: ['cash'] },
    token,
  });
  t.equal(bad.status, 400);
  t.equal(bad.body.details[0].pointer, '/payment_methods/0');
});

t.test("a split-reception agreement needs a split agreement (400) and the account's own ids (404)", async (t) => {
  const server = await startTestServer(t);
  const { plain, split, partnerA, token } = await catalog(server);
  const onPlain = await server.api.post('/api/v1/ext/split-agreements', {
    json: { agreement_id: plain.agreement_id, partner_id: partnerA.partner_id },
    token,
  });
  t.equal(onPlain.status, 400);
  const stranger = await catalog(server);
  const foreign = await server.api.post('/api/v1/ext/split-agreements', {
    json: { agreement_id: split.agreement_id, partner_id: stranger.partnerA.partner_id },
    token,
  });
  t.equal(foreign.status, 404, "another account's partner is unknown here");
});

t.test('a Button session answers every field, with pay_url and origin button, and reads back', async (t) => {
  const server = await startTestServer(t);
  const { plain, createSession, token } = await catalog(server);
  const session = await createSession({
    amount_reference: 25.5,
    description: 'order 7',
    webhook_url: 'https://example.com/hook',
  });
  t.match(session, {
    session_id: /^ses_/,
    status: 'pending',
    agreement_id: plain.agreement_id,
    amount_reference: 25.5,
    currency_reference: 'USD',
    due_date_session: null,
    due_date_reached_behavior: 'expire',
    webhook_url: 'https://example.com/hook',
    pay_url: `${server.baseUrl}/pay/${session.session_id}`,
    accreditation: { status: 'none' },
    session_payment: { id: /^pay_/, origin: 'button', amount_reference: 25.5 },
    description: 'order 7',
  });
  const read = await server.api.get(`/api/v1/ext/payment-sessions/${session.session_id}`, { token });
  t.same(read.body, session);
  const short = await server.api.get(`/payment-sessions/${session.session_id}`, { token });
  t.same(short.body, session, 'the short path reads the same');
});

t.test('session input is checked: amounts, currency, distribution', async (t) => {
  const server = await startTestServer(t);
  const { plain, split, partnerA, partnerB, token } = await catalog(server);
  const create = (json: Record<string, unknown>) =>
    server.api.post('/api/v1/ext/payment-sessions/buttons', {
      json: { agreement_id: split.agreement_id, amount_reference: 100, ...json },
      token,
    });
  const cases: Array<[string, Record<string, unknown>, number, string]> = [
    ['three decimals', { amount_reference: 1.005 }, 400, '/amount_reference'],
    ['zero', { amount_reference: 0 }, 400, '/amount_reference'],
    ['another currency', { currency_reference: 'EUR' }, 400, '/currency_reference'],
    ['unknown agreement', { agreement_id: 'agr_000000000000000000' }, 404, ''],
    [
      'distribution over the amount',
      {
        split: {
          distribution: [
            { partner_id: partnerA.partner_id, amount_reference: 60 },
            { partner_id: partnerB.partner_id, amount_reference: 40.01 },
          ],
        },
      },
      400,
      '/split/distribution',
    ],
    [
      'unknown partner',
      { split: { distribution: [{ partner_id: 'ptn_000000000000000000', amount_reference: 1 }] } },
      404,
      '',
    ],
    [
      'a partner twice',
      {
        split: {
          distribution: [
            { partner_id: partnerA.partner_id, amount_reference: 1 },
            { partner_id: partnerA.partner_id, amount_reference: 1 },
          ],
        },
      },
      400,
      '/split/distribution/1/partner_id',
    ],
    ['a bad due date', { due_date_session: 'tomorrow' }, 400, '/due_date_session'],
  ];
  for (const [name, json, status, pointer] of cases) {
    const response = await create(json);
    t.equal(response.status, status, name);
    if (status === 400)
      t.ok(
        response.body.details.some((d: { pointer: string }) => d.pointer === pointer),
        `${name}: ${pointer}`,
      );
  }
  const unlinked = await catalog(server); // partners not linked to *this* split agreement
  void unlinked;
  const partnerC = (await server.api.post('/api/v1/ext/partners', { json: { name: 'C', document_id: 'C' }, token }))
    .body;
  const notLinked = await create({
    split: { distribution: [{ partner_id: partnerC.partner_id, amount_reference: 10 }] },
  });
  t.equal(notLinked.status, 400, 'on a split agreement each partner must be linked');
  const onPlain = await server.api.post('/api/v1/ext/payment-sessions/buttons', {
    json: {
      agreement_id: plain.agreement_id,
      amount_reference: 100,
      split: { distribution: [{ partner_id: partnerC.partner_id, amount_reference: 10 }] },
    },
    token,
  });
  t.equal(onPlain.status, 201, 'on a split: false agreement a distribution is accepted (the partner is still checked)');
  const exact = await create({
    split: {
      distribution: [
        { partner_id: partnerA.partner_id, amount_reference: 60 },
        { partner_id: partnerB.partner_id, amount_reference: 40 },
      ],
    },
  });
  t.equal(exact.status, 201, 'a distribution may take the whole amount');
});

t.test(
  'due dates: a past one is accepted; expire-mode reads expired, keep_active pending; the clock moves them',
  async (t) => {
    const server = await startTestServer(t);
    const { createSession, token } = await catalog(server);
    const past = new Date(server.clock.now() - 60_000).toISOString();
    const expiring = await createSession({ due_date_session: past });
    t.equal(expiring.status, 'pending', 'accepted, as created');
    t.equal(
      (await server.api.get(`/api/v1/ext/payment-sessions/${expiring.session_id}`, { token })).body.status,
      'expired',
      'expired on the first status read',
    );
    const kept = await createSession({ due_date_session: past, due_date_reached_behavior: 'keep_active' });
    t.equal((await server.api.get(`/payment-sessions/${kept.session_id}`, { token })).body.status, 'pending');

    const soon = await createSession({ due_date_session: new Date(server.clock.now() + 3_600_000).toISOString() });
    t.equal((await server.api.get(`/payment-sessions/${soon.session_id}`, { token })).body.status, 'pending');
    await server.api.post('/control/clock/advance', { json: { ms: 3_600_000 }, token });
    t.equal(
      (await server.api.get(`/payment-sessions/${soon.session_id}`, { token })).body.status,
      'expired',
      'advancing the account clock reaches the due date',
    );
  },
);

t.test('expire: pending and failed expire, expired is unchanged, paid answers 422', async (t) => {
  const server = await startTestServer(t);
  const { createSession, token } = await catalog(server);
  const expire = (id: string) => server.api.post(`/api/v1/ext/payment-sessions/${id}/expire`, { token });
  const pending = await createSession();
  t.equal((await expire(pending.session_id)).body.status, 'expired');
  t.equal((await expire(pending.session_id)).status, 200, 'again: unchanged');
  const failed = await createSession();
  await server.api.post(`/control/sessions/${failed.session_id}/outcome`, {
    json: { leg: 1, outcome: 'failed' },
    token,
  });
  t.equal((await expire(failed.session_id)).body.status, 'expired');
  const paid = await createSession();
  await server.api.post(`/control/sessions/${paid.session_id}/outcome`, { json: { leg: 1, outcome: 'paid' }, token });
  const refused = await expire(paid.session_id);
  t.equal(refused.status, 422);
  t.equal(refused.body.code, 'SESSION_ALREADY_PAID');
});

t.test('a Request batch creates all its sessions, or none (continue_on_error is ignored)', async (t) => {
  const server = await startTestServer(t);
  const { plain, token } = await catalog(server);
  const item = { agreement_id: plain.agreement_id, amount_reference: 10 };
  const batch = await server.api.post('/api/v1/ext/payment-sessions/requests', {
    json: { sessions: [item, { ...item, amount_reference: 20 }], continue_on_error: true },
    token,
  });
  t.equal(batch.status, 201);
  t.match(batch.body, {
    batch_id: /^bat_/,
    sessions: [{ session_payment: { origin: 'request' } }, { amount_reference: 20 }],
  });
  const read = await server.api.get(`/api/v1/ext/payment-sessions/requests/${batch.body.batch_id}`, { token });
  t.same(
    read.body.sessions.map((s: { session_id: string }) => s.session_id),
    batch.body.sessions.map((s: { session_id: string }) => s.session_id),
  );

  const before = (await server.store.count('sessions')) as number;
  const bad = await server.api.post('/api/v1/ext/payment-sessions/requests', {
    json: { sessions: [item, { ...item, agreement_id: 'agr_000000000000000000' }], continue_on_error: true },
    token,
  });
  t.equal(bad.status, 404, 'an unknown agreement in an item is NOT_FOUND');
  t.match(bad.body.message, /\/sessions\/1\/agreement_id/);
  const invalid = await server.api.post('/api/v1/ext/payment-sessions/requests', {
    json: { sessions: [item, { ...item, amount_reference: -1 }] },
    token,
  });
  t.equal(invalid.status, 400);
  t.equal(invalid.body.details[0].pointer, '/sessions/1/amount_reference');
  t.equal(await server.store.count('sessions'), before, 'nothing was created by either failed batch');
});

t.test("another account's sessions, batches and agreements answer 404", async (t) => {
  const server = await startTestServer(t);
  const owner = await catalog(server);
  const session = await owner.createSession();
  const stranger = await registerAccount(server.api);
  for (const path of [
    `/api/v1/ext/payment-sessions/${session.session_id}`,
    `/payment-sessions/${session.session_id}`,
  ]) {
    t.equal((await server.api.get(path, { token: stranger.key.token })).status, 404);
  }
  t.equal(
    (await server.api.post(`/api/v1/ext/payment-sessions/${session.session_id}/expire`, { token: stranger.key.token }))
      .status,
    404,
  );
  const foreignAgreement = await server.api.post('/api/v1/ext/payment-sessions/buttons', {
    json: { agreement_id: owner.plain.agreement_id, amount_reference: 1 },
    token: stranger.key.token,
  });
  t.equal(foreignAgreement.status, 404);
});
