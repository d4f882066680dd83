import t from 'tap';
import { WebSocket } from 'ws';
import { registerAccount, startTestServer } from '../testing/test-server.js';
import { trace } from '../trace/trace.js';
import { webhookSetup } from '../webhooks/webhooks-testkit.js';
import { catalog } from '../sessions/sessions-testkit.js';

t.test('the trace reads newest first, filtered by type and session, bounded by limit', async (t) => {
  const server = await startTestServer(t);
  const { sessionTo, account } = await webhookSetup(server);
  const first = await sessionTo(null);
  const second = await sessionTo(null);
  const ct = account.console_token;
  const all = (await server.api.get('/console/trace', { token: ct })).body.data;
  t.ok(all.length >= 6, 'session.created, webhook.emitted and attempts for both');
  t.equal(all[0].session_id, second.session_id, 'newest first');
  t.notOk('account_id' in all[0] || 'order' in all[0], 'no internal fields');
  const created = (await server.api.get('/console/trace?type=session.created', { token: ct })).body.data;
  t.same(
    created.map((e: { session_id: string }) => e.session_id),
    [second.session_id, first.session_id],
  );
  const ofFirst = (await server.api.get(`/console/trace?session_id=${first.session_id}`, { token: ct })).body.data;
  t.ok(ofFirst.every((e: { session_id: string }) => e.session_id === first.session_id));
  t.equal((await server.api.get('/console/trace?limit=2', { token: ct })).body.data.length, 2);
  for (const limit of ['0', '1001', 'x'])
    t.equal((await server.api.get(`/console/trace?limit=${limit}`, { token: ct })).status, 400, `limit=${limit}`);
  t.equal((await server.api.get('/console/trace', { token: account.key.token })).status, 401, 'the console token only');
});

t.test("/console/sessions lists the account's sessions newest first, as their status reads now", async (t) => {
  const server = await startTestServer(t);
  const { createSession, account } = await catalog(server);
  const older = await createSession({ due_date_session: new Date(server.clock.now() - 1000).toISOString() });
  server.clock.advance(10);
  const newer = await createSession();
  const list = (await server.api.get('/console/sessions', { token: account.console_token })).body.data;
  t.same(
    list.map((s: { session_id: string }) => s.session_id),
    [newer.session_id, older.session_id],
  );
  t.equal(list[1].status, 'expired', 'the due-date rule applies as in a status read');
});

t.test('each progress step becomes done from what really happened', async (t) => {
  const server = await startTestServer(t);
  const { sessionTo, force, account, hooks } = await webhookSetup(server);
  const progress = async () => (await server.api.get('/console/progress', { token: account.console_token })).body;
  const done = async () =>
    (await progress()).steps.filter((s: { done: boolean }) => s.done).map((s: { id: string }) => s.id);
  t.same(await done(), ['registered', 'agreement_created'], 'the setup registered and made agreements');
  const session = await sessionTo(hooks.paid!);
  t.same(await done(), ['registered', 'agreement_created', 'session_created', 'webhook_delivered']);
  await force(session.session_id, 1, 'paid');
  await force(session.session_id, 2, 'accredited');
  await server.app.jobs.dispatcher.runDue();
  t.match(await done(), [
    'registered',
    'agreement_created',
    'session_created',
    'session_paid',
    'webhook_delivered',
    'accredited_delivered',
  ]);
  const relay = new WebSocket(`${server.baseUrl.replace('http', 'ws')}/relay`, {
    headers: { authorization: `Bearer ${account.key.token}` },
  });
  await new Promise((resolve) => relay.on('open', resolve));
  relay.close();
  await server.api.post(`/console/hooks/${account.account_id}/fail`, { json: {} });
  await new Promise((resolve) => setImmediate(resolve));
  const final = await progress();
  t.equal(final.done, 8);
  t.equal(final.total, 8);
  t.ok(
    final.steps.every((s: { at?: string }) => typeof s.at === 'string'),
    'each done step says when',
  );
});

t.test("the rate brake limits one account's API, not its console nor another account", async (t) => {
  const server = await startTestServer(t);
  const a = await catalog(server);
  const b = await catalog(server);
  const set = await server.api.put('/console/rate-limit', { json: { per_minute: 3 }, token: a.account.console_token });
  t.same(set.body, { per_minute: 3 });
  const path = `/api/v1/ext/stops`;
  const answers = [];
  for (let i = 0; i < 4; i += 1) answers.push(await server.api.get(path, { token: a.token }));
  t.same(
    answers.map((r) => r.status),
    [200, 200, 200, 429],
  );
  t.same(
    answers.map((r) => r.headers.get('x-ratelimit-remaining')),
    ['2', '1', '0', '0'],
  );
  t.equal(answers[0]!.headers.get('x-ratelimit-limit'), '3');
  const resetAt = Number(answers[0]!.headers.get('x-ratelimit-reset'));
  t.equal(resetAt % 60, 0, 'X-RateLimit-Reset is the epoch second the minute ends');
  t.equal(answers[3]!.body.code, 'RATE_LIMITED');
  t.equal(Number(answers[3]!.headers.get('retry-after')), resetAt - Math.floor(server.clock.now() / 1000));
  t.equal((await server.api.get('/control/clock', { token: a.token })).status, 429, '/control/** is braked too');
  t.equal(
    (await server.api.get('/console/trace', { token: a.account.console_token })).status,
    200,
    '/console/** never is',
  );
  const other = await server.api.get(path, { token: b.token });
  t.equal(other.status, 200);
  t.equal(other.headers.get('x-ratelimit-limit'), null, 'another account has no brake');
  server.clock.advance(60_000);
  t.equal((await server.api.get(path, { token: a.token })).status, 200, 'a new minute, a new window');
  await server.api.put('/console/rate-limit', { json: { per_minute: null }, token: a.account.console_token });
  const off = await server.api.get(path, { token: a.token });
  t.equal(off.headers.get('x-ratelimit-limit'), null, 'null switches it off');
  for (const per_minute of [0, 100_001, 1.5, '10']) {
    t.equal(
      (await server.api.put('/console/rate-limit', { json: { per_minute }, token: a.account.console_token })).status,
      400,
      JSON.stringify(per_minute),
    );
  }
});

t.test('/fidelidad lists every difference the interface names', async (t) => {
  const server = await startTestServer(t);
  const answer = await server.api.get('/fidelidad');
  t.equal(answer.status, 200);
  const ids = answer.body.differences.map((d: { id: string }) => d.id);
  for (const id of [
    'accreditation-delay',
    'retry-ladder',
    'past-due-date',
    'emitted-events',
    'request-batch-continue-on-error',
    'status-422',
    'stops-mocks',
    'refresh-token',
    'token-lifetime',
    'idempotency-keys',
    'rate-brake',
    'commission',
    'data-lifetime',
  ]) {
    t.ok(ids.includes(id), id);
  }
});

t.test('/fidelidad is a page for a browser, JSON otherwise, with the values this server runs with', async (t) => {
  const server = await startTestServer(t, { accreditationDelayMs: 1234, dataTtlDays: 30 });
  const json = await server.api.get('/fidelidad', { headers: { accept: 'application/json' } });
  const delay = json.body.differences.find((d: { id: string }) => d.id === 'accreditation-delay');
  t.match(delay.simulator, /1234 ms on this server/, 'the running accreditation delay');
  t.match(
    json.body.differences.find((d: { id: string }) => d.id === 'data-lifetime').simulator,
    /30 days on this server/,
  );
  t.match(json.headers.get('content-type'), /application\/json/);
  t.match(
    (await server.api.get('/fidelidad')).headers.get('content-type'),
    /application\/json/,
    'JSON when nothing is asked',
  );
  const page = await server.api.get('/fidelidad', {
    headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
  });
  t.match(page.headers.get('content-type'), /text\/html/, 'a page for what a browser sends');
  t.match(page.text, /<th scope="row">Accreditation \(leg 2\) timing<\/th>/);
  t.match(page.text, /1234 ms on this server/);
  t.equal(page.headers.get('vary'), 'Accept');
});

t.test('GET / is a page linking the console, the document and /fidelidad; the favicon is an icon', async (t) => {
  const server = await startTestServer(t);
  const home = await server.api.get('/');
  t.equal(home.status, 200);
  for (const link of ['/console', '/openapi.json', '/fidelidad']) t.match(home.text, `href="${link}"`, link);
  t.match(
    home.text,
    new RegExp(`curl -s -X POST ${server.baseUrl}/console/register`),
    "the first step, with this server's address",
  );
  const icon = await fetch(`${server.baseUrl}/favicon.ico`);
  t.equal(icon.status, 200);
  t.equal(icon.headers.get('content-type'), 'image/x-icon');
  const bytes = Buffer.from(await icon.arrayBuffer());
  t.same([bytes.readUInt16LE(0), bytes.readUInt16LE(2), bytes.readUInt16LE(4)], [0, 1, 1], 'an ICO with one image');
  t.equal(icon.headers.get('cache-control'), 'public, max-age=86400');
});

t.test('test data older than SIM_DATA_TTL_DAYS is purged on the account clock', async (t) => {
  const server = await startTestServer(t, { dataTtlDays: 14 });
  const { createSession, token, account } = await catalog(server);
  const old = await createSession();
  await server.api.post('/control/clock/advance', { json: { ms: 7 * 86_400_000 }, token });
  const recent = await createSession();
  await server.api.post('/control/clock/advance', { json: { ms: 7 * 86_400_000 }, token });
  t.equal(
    (await server.api.get(`/payment-sessions/${old.session_id}`, { token })).status,
    200,
    'exactly 14 days old: kept',
  );
  await server.api.post('/control/clock/advance', { json: { ms: 1 }, token });
  t.equal(
    (await server.api.get(`/payment-sessions/${old.session_id}`, { token })).status,
    404,
    'older than 14 days: purged',
  );
  t.equal((await server.api.get(`/payment-sessions/${recent.session_id}`, { token })).status, 200);
  const trace = (await server.api.get('/console/trace?type=session.created', { token: account.console_token })).body
    .data;
  t.same(
    trace.map((e: { session_id: string }) => e.session_id),
    [recent.session_id],
    'its trace went with it',
  );
  const events = await server.store.list<{ event_id: string; session_id: string }>('events', {
    where: { account_id: account.account_id },
  });
  const outcomes = await server.store.list<{ event_id: string }>('webhook_outcomes', {
    where: { account_id: account.account_id },
  });
  t.same(new Set(events.map((e) => e.session_id)), new Set([recent.session_id]), 'its events went with it');
  t.ok(outcomes.length > 0, 'the recent events were attempted');
  t.same(outcomes.map((o) => o.event_id).sort(), events.map((e) => e.event_id).sort(), 'and their delivery outcomes');
  t.equal(
    (await server.api.get('/console/keys', { token: account.console_token })).status,
    200,
    'the account and keys stay',
  );
});

t.test(
  'the trace is newest first by `at`, ties in the order written, whatever order the entries were written in',
  async (t) => {
    const server = await startTestServer(t);
    const account = await registerAccount(server.api);
    // An attempt's entry is written when it ends but carries the time it started: after the receiver's entry, 1 ms earlier.
    await server.store.transact((tx) => trace(tx, account.account_id, 'webhook.received', '2026-11-21T10:00:00.001Z'));
    await server.store.transact((tx) => trace(tx, account.account_id, 'webhook.attempt', '2026-11-21T10:00:00.000Z'));
    await server.store.transact((tx) => trace(tx, account.account_id, 'tie.first', '2026-11-21T10:00:00.002Z'));
    await server.store.transact((tx) => trace(tx, account.account_id, 'tie.second', '2026-11-21T10:00:00.002Z'));
    const listed = (await server.api.get('/console/trace', { token: account.console_token })).body.data as Array<{
      type: string;
    }>;
    t.same(listed.map((entry) => entry.type).slice(0, 4), [
      'tie.second',
      'tie.first',
      'webhook.received',
      'webhook.attempt',
    ]);
    t.notOk(
      listed.some((entry) => 'listed' in entry),
      'no internal fields',
    );
  },
);

t.test(
  'the trace polled with a cursor answers only what was written since, and the sessions filter by status',
  async (t) => {
    const server = await startTestServer(t);
    const { createSession, token, account } = await catalog(server);
    const ct = account.console_token;
    await createSession();
    const first = await server.api.get('/console/trace?limit=5', { token: ct });
    t.match(first.body.cursor, /^\d+$/);
    const idle = await server.api.get(`/console/trace?after=${first.body.cursor}`, { token: ct });
    t.same(idle.body, { data: [], cursor: first.body.cursor }, 'nothing new: no entries, the same cursor');
    const second = await createSession();
    const fresh = await server.api.get(`/console/trace?after=${first.body.cursor}`, { token: ct });
    t.ok(
      fresh.body.data.length > 0 &&
        fresh.body.data.every((entry: { session_id?: string }) => entry.session_id === second.session_id),
      "only the new session's entries",
    );
    t.ok(BigInt(fresh.body.cursor) > BigInt(first.body.cursor), 'the cursor moved on');
    const byType = await server.api.get(`/console/trace?after=${first.body.cursor}&type=session.created`, {
      token: ct,
    });
    t.same(
      byType.body.data.map((entry: { type: string }) => entry.type),
      ['session.created'],
      'with the filters',
    );
    t.equal((await server.api.get('/console/trace?after=abc', { token: ct })).status, 400);

    await server.api.post(`/control/sessions/${second.session_id}/outcome`, {
      json: { leg: 1, outcome: 'paid' },
      token,
    });
    const paid = await server.api.get('/console/sessions?status=paid', { token: ct });
    t.same(
      paid.body.data.map((s: { session_id: string }) => s.session_id),
      [second.session_id],
      'only the paid one',
    );
    t.equal((await server.api.get('/console/sessions?status=pending', { token: ct })).body.data.length, 1);
    t.equal((await server.api.get('/console/sessions?status=lost', { token: ct })).status, 400);
  },
);
