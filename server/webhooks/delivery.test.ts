import t, { type Test } from 'tap';
import { openApiDocument } from '../../contracts/openapi.js';
import { SchemaValidator } from '../../contracts/validator.js';
import { verifyWebhook } from '../../contracts/webhook-signature.js';
import { ManualClock } from '../clock.js';
import type { OutboxEvent } from '../sessions/events.js';
import { bootOnDirectory, startTestServer } from '../testing/test-server.js';
import { traceOf, webhookSetup } from './webhooks-testkit.js';

const schemas = new SchemaValidator(openApiDocument);

t.test(
  "a webhook to the account's own receiver is delivered in process, signed, and recorded as received",
  async (t) => {
    const server = await startTestServer(t);
    const { sessionTo, hooks, secret, account } = await webhookSetup(server);
    const session = await sessionTo(hooks.paid!);
    const [received] = await traceOf(server, account.account_id, 'webhook.received');
    t.ok(received, 'the paid receiver got the created event');
    const verdict = verifyWebhook({
      rawBody: received!.raw_body as string,
      headers: received!.headers as Record<string, string>,
      secret,
      now: server.clock.now(),
    });
    t.equal(verdict.ok, true, 'the signature verifies over the raw body');
    t.same(
      schemas.check({ $ref: '#/components/schemas/SessionCreatedEvent' }, JSON.parse(received!.raw_body as string)),
      [],
      'the payload matches the webhooks schema',
    );
    t.match(received!.headers, {
      'content-type': 'application/json',
      'svc-timestamp': String,
      'idempotency-key': /^[0-9a-f-]{36}$/,
    });
    t.equal(received!.session_id, session.session_id);
    const [attempt] = await traceOf(server, account.account_id, 'webhook.attempt');
    t.match(attempt, {
      attempt: 1,
      routing: 'loopback',
      status: 200,
      duration_ms: Number,
      idempotency_key: received!.idempotency_key,
    });
    const [emitted] = await traceOf(server, account.account_id, 'webhook.emitted');
    t.match(
      emitted,
      { payload: received!.raw_body, signature: received!.signature },
      'the trace holds the payload and signature as emitted',
    );
  },
);

t.test(
  'the sim ladder: attempts at 0, 2000 and 5000 ms after the previous one ended, same signature each time, then given up',
  async (t) => {
    const server = await startTestServer(t);
    const { sessionTo, hooks, account } = await webhookSetup(server);
    const started = server.clock.now();
    await sessionTo(hooks.fail!);
    const attempts = () => traceOf(server, account.account_id, 'webhook.attempt');
    t.equal((await attempts()).length, 1, 'attempt 1 at once');
    server.clock.advance(1999);
    await server.app.jobs.dispatcher.runDue();
    t.equal((await attempts()).length, 1, 'not before 2000 ms');
    server.clock.advance(1);
    await server.app.jobs.dispatcher.runDue();
    t.equal((await attempts()).length, 2, 'attempt 2 at 2000 ms');
    server.clock.advance(4999);
    await server.app.jobs.dispatcher.runDue();
    t.equal((await attempts()).length, 2);
    server.clock.advance(1);
    await server.app.jobs.dispatcher.runDue();
    const all = await attempts();
    t.same(
      all.map((a) => [a.attempt, a.status, Date.parse(a.at) - started]),
      [
        [1, 500, 0],
        [2, 500, 2000],
        [3, 500, 7000],
      ],
    );
    const gaveUp = await traceOf(server, account.account_id, 'webhook.gave_up');
    t.equal(gaveUp.length, 1);
    server.clock.advance(60_000);
    await server.app.jobs.dispatcher.runDue();
    t.equal((await attempts()).length, 3, 'nothing after giving up');
    const received = await traceOf(server, account.account_id, 'webhook.received');
    t.equal(
      new Set(
        received.map(
          (r) => `${r.signature}|${(r.headers as Record<string, string>)['svc-timestamp']}|${r.idempotency_key}`,
        ),
      ).size,
      1,
      'retries carry the same timestamp, signature and idempotency key',
    );
  },
);

t.test('the production ladder: at once, then 1, 5, 15 and 60 minutes, then undelivered', async (t) => {
  const server = await startTestServer(t, { webhookLadder: 'production' });
  const { sessionTo, hooks, account } = await webhookSetup(server);
  const started = server.clock.now();
  await sessionTo(hooks.fail!);
  for (const minutes of [1, 5, 15, 60]) {
    server.clock.advance(minutes * 60_000);
    await server.app.jobs.dispatcher.runDue();
  }
  const attempts = await traceOf(server, account.account_id, 'webhook.attempt');
  t.same(
    attempts.map((a) => (Date.parse(a.at) - started) / 60_000),
    [0, 1, 6, 21, 81],
  );
  t.equal((await traceOf(server, account.account_id, 'webhook.undelivered')).length, 1);
});

t.test('events of one session go in order: a later one waits until the earlier is delivered or given up', async (t) => {
  const server = await startTestServer(t);
  const { sessionTo, force, hooks, account } = await webhookSetup(server);
  const session = await sessionTo(hooks.fail!);
  await force(session.session_id, 1, 'paid');
  await force(session.session_id, 2, 'accredited');
  await server.app.jobs.dispatcher.runDue();
  const events = async () => (await traceOf(server, account.account_id, 'webhook.attempt')).map((a) => a.event_id);
  t.equal((await events()).length, 1, 'paid and accredited wait behind created');
  for (let i = 0; i < 12; i += 1) {
    server.clock.advance(1000);
    await server.app.jobs.dispatcher.runDue();
  }
  server.clock.advance(60_000);
  await server.app.jobs.dispatcher.runDue();
  const order = await events();
  const firstOf = (id: string) => order.indexOf(id);
  const lastOf = (id: string) => order.lastIndexOf(id);
  const ids = [...new Set(order)];
  t.equal(ids.length, 3, 'three events of the session');
  t.ok(
    lastOf(ids[0]!) < firstOf(ids[1]!) && lastOf(ids[1]!) < firstOf(ids[2]!),
    'every attempt of an event comes before any of the next',
  );
  const received = await traceOf(server, account.account_id, 'webhook.received');
  t.same(
    [...new Set(received.map((r) => (r.body as { event: string }).event))],
    ['payment_session.created', 'payment_session.paid', 'payment_session.accredited'],
  );
});

t.test(
  'a session without webhook_url still has its webhooks traced with payload and signature, routing none',
  async (t) => {
    const server = await startTestServer(t);
    const { sessionTo, account } = await webhookSetup(server);
    await sessionTo(null);
    t.match(await traceOf(server, account.account_id, 'webhook.emitted'), [
      { payload: String, signature: /^[0-9a-f]{64}$/ },
    ]);
    t.match(await traceOf(server, account.account_id, 'webhook.attempt'), [
      { routing: 'none', error: /no webhook_url/ },
    ]);
  },
);

t.test('a delivery in the middle of its ladder resumes after a restart', async (t) => {
  const dir = t.testdir();
  const clock = new ManualClock();
  const boot = () => bootOnDirectory(dir, clock);
  const first = await boot();
  const registered = (
    await first.api.post('/console/register', { json: { email: 'restart@example.com', password: '12345678' } })
  ).body;
  const token = registered.key.token;
  const agreement = (
    await first.api.post('/api/v1/ext/agreements', {
      json: { name: 'A', currency_reference: 'USD', split: false, payment_methods: ['card'] },
      token,
    })
  ).body;
  // The hook URL names the first server's origin; the second server is told that origin too.
  await first.api.post('/api/v1/ext/payment-sessions/buttons', {
    json: { agreement_id: agreement.agreement_id, amount_reference: 1, webhook_url: registered.hooks.fail },
    token,
  });
  await first.app.jobs.dispatcher.runDue();
  await first.stop();

  const second = await boot();
  t.teardown(second.stop);
  second.app.addOrigin(first.baseUrl);
  clock.advance(2000);
  await second.app.jobs.dispatcher.runDue();
  const attempts = await second.store.list<{ attempt: number; status: number }>('trace', {
    where: { account_id: registered.account_id, type: 'webhook.attempt' },
    orderBy: { field: 'order', direction: 'asc' },
  });
  t.same(
    attempts.map((a) => [a.attempt, a.status]),
    [
      [1, 500],
      [2, 500],
    ],
    'attempt 2 came after the restart, on the ladder',
  );
});

t.test(
  'a manual resend is a new attempt with the same idempotency key and a fresh timestamp and signature',
  async (t) => {
    const server = await startTestServer(t);
    const { sessionTo, hooks, account } = await webhookSetup(server);
    await sessionTo(hooks.captura!);
    const [emitted] = await traceOf(server, account.account_id, 'webhook.emitted');
    server.clock.advance(30_000);
    const resent = await server.api.post(`/console/webhooks/${emitted!.event_id}/resend`, {
      token: account.console_token,
    });
    t.equal(resent.status, 200);
    t.match(resent.body, { event_id: emitted!.event_id, routing: 'loopback', status: 200, attempt: 2 });
    const received = await traceOf(server, account.account_id, 'webhook.received');
    t.equal(received.length, 2);
    t.equal(received[1]!.idempotency_key, received[0]!.idempotency_key, 'same idempotency key');
    t.not(
      (received[1]!.headers as Record<string, string>)['svc-timestamp'],
      (received[0]!.headers as Record<string, string>)['svc-timestamp'],
      'fresh timestamp',
    );
    t.not(received[1]!.signature, received[0]!.signature, 'fresh signature');
    t.equal(
      verifyWebhook({
        rawBody: received[1]!.raw_body as string,
        headers: received[1]!.headers as Record<string, string>,
        secret: account.key.webhook_secret,
        now: server.clock.now(),
      }).ok,
      true,
    );
    t.equal(
      (await server.api.post('/console/webhooks/evt_000000000000000000/resend', { token: account.console_token }))
        .status,
      404,
    );
    t.equal(
      (await server.api.post(`/console/webhooks/${emitted!.event_id}/resend`, { token: account.key.token })).status,
      401,
      'the console token, not the API token',
    );
  },
);

/** A test server with one session to the account's `receiver`; the event its creation emitted, and views of it. */
async function oneEventTo(t: Test, receiver: 'paid' | 'fail') {
  const server = await startTestServer(t);
  const setup = await webhookSetup(server);
  await setup.sessionTo(setup.hooks[receiver]!);
  const [emitted] = await traceOf(server, setup.account.account_id, 'webhook.emitted');
  const eventId = emitted!.event_id as string;
  return {
    server,
    hooks: setup.hooks,
    accountId: setup.account.account_id,
    emitted: emitted!,
    eventId,
    storedEvent: async () => (await server.store.get<OutboxEvent>('events', eventId))!,
    outcome: () => server.store.get('webhook_outcomes', eventId),
    consoleToken: setup.account.console_token as string,
    resend: () => server.api.post(`/console/webhooks/${eventId}/resend`, { token: setup.account.console_token }),
  };
}

t.test(
  'an attempt leaves the event as emitted and keeps how its delivery went in a small outcome record',
  async (t) => {
    const { server, accountId, emitted, eventId, storedEvent, outcome } = await oneEventTo(t, 'paid');
    const event = await storedEvent();
    t.equal(event.body, emitted.payload, 'the event keeps its body');
    t.notOk('attempts' in event || 'delivery' in event, 'the event is not rewritten by its attempts');
    t.same(await outcome(), { event_id: eventId, account_id: accountId, delivery: 'delivered', attempts: 1 });
    t.equal(await server.store.get('deliveries', eventId), undefined, 'the delivery is closed');
  },
);

t.test(
  'resends after a delivery was given up count on from its outcome; one that succeeds marks it delivered',
  async (t) => {
    const { server, hooks, eventId, storedEvent, outcome, resend } = await oneEventTo(t, 'fail');
    for (const step of [2000, 5000]) {
      server.clock.advance(step);
      await server.app.jobs.dispatcher.runDue();
    }
    t.match(await outcome(), { delivery: 'gave_up', attempts: 3 });
    t.match((await resend()).body, { attempt: 4, status: 500 });
    t.match(await outcome(), { delivery: 'gave_up', attempts: 4 }, 'a failed resend keeps how it closed');
    // The receiver is the account's 500 one; point the stored event at its 200 one, as a fixed receiver would be.
    const event = await storedEvent();
    await server.store.transact((tx) => tx.put('events', eventId, { ...event, webhook_url: hooks.paid! }));
    t.match((await resend()).body, { attempt: 5, status: 200 });
    t.match(await outcome(), { delivery: 'delivered', attempts: 5 });
  },
);

t.test('an event stored before outcomes were kept apart resends with the count and state it carries', async (t) => {
  const { server, accountId, eventId, storedEvent, outcome, resend } = await oneEventTo(t, 'fail');
  // What an earlier version left once a delivery closed: the state on the event itself, no outcome record.
  const event = await storedEvent();
  await server.store.transact((tx) => {
    tx.put('events', eventId, { ...event, delivery: 'undelivered', attempts: 5 });
    tx.delete('deliveries', eventId);
  });
  server.clock.advance(1000);
  t.match((await resend()).body, { attempt: 6, status: 500 });
  t.same(await outcome(), { event_id: eventId, account_id: accountId, delivery: 'undelivered', attempts: 6 });
});

t.test('the default receivers answer 200, 200, 500 on purpose and 200 to anything, recording each call', async (t) => {
  const server = await startTestServer(t);
  const { account } = await webhookSetup(server);
  const base = `/console/hooks/${account.account_id}`;
  t.equal((await server.api.post(`${base}/paid`, { json: { hello: 1 } })).status, 200);
  t.equal((await server.api.post(`${base}/accredited`, { json: {} })).status, 200);
  const failing = await server.api.post(`${base}/fail`, { json: {} });
  t.equal(failing.status, 500);
  t.equal(failing.body.code, 'RECEIVER_FAILS_ON_PURPOSE');
  t.equal(
    (
      await server.api.post(`${base}/captura`, {
        raw: 'not json at all',
        headers: { 'content-type': 'text/plain', 'svc-signature': 'abc', 'idempotency-key': 'k1' },
      })
    ).status,
    200,
  );
  t.equal((await server.api.post('/console/hooks/acc_nobody/paid', { json: {} })).status, 404);
  const received = await traceOf(server, account.account_id, 'webhook.received');
  t.equal(received.length, 4);
  t.match(received[3], {
    receiver: 'captura',
    raw_body: 'not json at all',
    body: null,
    signature: 'abc',
    idempotency_key: 'k1',
  });
});

t.test(
  'an attempt keeps where it went, what it sent and the start of the answer; a resend may go to another URL, the session keeping its own',
  async (t) => {
    const { server, hooks, accountId, eventId, storedEvent, consoleToken } = await oneEventTo(t, 'fail');
    const [first] = await traceOf(server, accountId, 'webhook.attempt');
    t.match(
      first,
      {
        url: hooks.fail,
        status: 500,
        response_body: JSON.stringify({
          message: 'this receiver answers 500 on purpose, to exercise retries',
          code: 'RECEIVER_FAILS_ON_PURPOSE',
        }),
        request_headers: { 'content-type': 'application/json', 'svc-signature': /\w+/, 'idempotency-key': /\w+/ },
      },
      "the failing receiver's URL, its status, why it said so, and the headers sent",
    );
    t.ok((first!.request_headers as Record<string, string>)['svc-timestamp'], 'the timestamp sent');

    const elsewhere = await server.api.post(`/console/webhooks/${eventId}/resend`, {
      json: { url: hooks.paid },
      token: consoleToken,
    });
    t.equal(elsewhere.status, 200);
    t.match(
      elsewhere.body,
      { url: hooks.paid, routing: 'loopback', status: 200, response_body: '{"received":true}' },
      'to the other receiver, with its answer',
    );
    t.equal((await storedEvent()).webhook_url, hooks.fail, "the event still goes to the session's own URL");
    const refused = await server.api.post(`/console/webhooks/${eventId}/resend`, {
      json: { url: 'ftp://example.com/x' },
      token: consoleToken,
    });
    t.equal(refused.status, 400, 'a URL that is not http(s) is refused');
    t.equal(refused.body.code, 'VALIDATION_FAILED');
  },
);

t.test(
  "the account's next due: a webhook retry, then nothing; advancing the clock by it makes it happen",
  async (t) => {
    const { server, hooks, accountId, eventId } = await oneEventTo(t, 'fail');
    const setup = await server.store.get<{ keys: Array<{ token: string }> }>('accounts', accountId);
    const token = setup!.keys[0]!.token;
    const next = await server.api.get('/control/clock/next', { token });
    t.equal(next.status, 200);
    t.match(
      next.body,
      { next: { kind: 'webhook_attempt', event_id: eventId, in_ms: 2000 } },
      'the second attempt, 2 s on (the sim ladder)',
    );
    await server.api.post('/control/clock/advance', { json: { ms: next.body.next.in_ms }, token });
    await server.app.jobs.dispatcher.runDue();
    const attempts = await traceOf(server, accountId, 'webhook.attempt');
    t.equal(attempts.length, 2, 'advancing by it made the attempt happen');
    t.match(
      (await server.api.get('/control/clock/next', { token })).body,
      { next: { kind: 'webhook_attempt', in_ms: 5000 } },
      'then the third, 5 s on',
    );
    await server.api.post('/control/clock/advance', { json: { ms: 5000 }, token });
    await server.app.jobs.dispatcher.runDue();
    t.same((await server.api.get('/control/clock/next', { token })).body, { next: null }, 'given up: nothing waits');
    void hooks;
  },
);

t.test('resending every given-up event, for a session or the account; one delivered since is left alone', async (t) => {
  const server = await startTestServer(t);
  const { sessionTo, hooks, account } = await webhookSetup(server);
  const first = await sessionTo(hooks.fail!);
  const second = await sessionTo(hooks.fail!);
  for (const step of [2000, 5000]) {
    server.clock.advance(step);
    await server.app.jobs.dispatcher.runDue();
  }
  t.equal((await traceOf(server, account.account_id, 'webhook.gave_up')).length, 2, 'both given up');
  // What a resend would take, listed first: the console shows its button only then.
  const listed = await server.api.get('/console/webhooks/failed', { token: account.console_token });
  t.equal(listed.status, 200);
  t.equal(listed.body.event_ids.length, 2, "both sessions' events");
  t.equal(listed.body.more, false);
  t.equal(
    (await server.api.get(`/console/webhooks/failed?session_id=${first.session_id}`, { token: account.console_token }))
      .body.event_ids.length,
    1,
    "one session's",
  );
  const one = await server.api.post('/console/webhooks/resend-failed', {
    json: { session_id: first.session_id },
    token: account.console_token,
  });
  t.equal(one.status, 200);
  t.equal(one.body.resent.length, 1, 'only the session asked for');
  t.match(one.body, { resent: [{ attempt: 4, status: 500 }], more: false });
  // The second session's event is sent, by hand, to a receiver that takes it: no longer failed.
  const [emitted] = (await traceOf(server, account.account_id, 'webhook.emitted')).filter(
    (e) => e.session_id === second.session_id,
  );
  await server.api.post(`/console/webhooks/${emitted!.event_id}/resend`, {
    json: { url: hooks.paid },
    token: account.console_token,
  });
  const all = await server.api.post('/console/webhooks/resend-failed', { token: account.console_token });
  t.same(
    all.body.resent.map((r: { event_id: string }) => r.event_id).length,
    1,
    "the account: the first session's again, not the one delivered since",
  );
  t.equal(all.body.more, false);
  t.same(
    (await server.api.get('/console/webhooks/failed', { token: account.console_token })).body.event_ids,
    all.body.resent.map((r: { event_id: string }) => r.event_id),
    'the list agrees with what was resent',
  );
});

t.test('the trace by how attempts ended: only those, and a clear 400 when combined with a session', async (t) => {
  const { server, consoleToken, emitted } = await oneEventTo(t, 'fail');
  const failed = await server.api.get('/console/trace?result=failed', { token: consoleToken });
  t.equal(failed.status, 200);
  t.ok(
    failed.body.data.length >= 1 &&
      failed.body.data.every(
        (e: { type: string; result: string }) => e.type === 'webhook.attempt' && e.result === 'failed',
      ),
    'failed attempts, nothing else',
  );
  t.same(
    (await server.api.get('/console/trace?result=succeeded', { token: consoleToken })).body.data,
    [],
    'none delivered',
  );
  const combined = await server.api.get(`/console/trace?result=failed&session_id=${emitted.session_id}`, {
    token: consoleToken,
  });
  t.equal(combined.status, 400);
  t.match(combined.body, { code: 'VALIDATION_FAILED', message: /result does not combine with session_id/ });
});
