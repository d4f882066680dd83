import t, { type Test } from 'tap';
import { checkInvariants, type OrderRun } from '../../../scripts/race/race.js';
import { bundledRaceFiles, loadRaceScenarios, playRace } from '../../../scripts/race/race-scenarios.js';
import { startSplitProxy } from '../../../contracts/testing/split-proxy.js';
import { signPosRequest } from '../../../contracts/clients/pos-client.js';
import { ManualClock } from '../../clock.js';
import { defaultConfig } from '../../config.js';
import { PgStore } from './pg-store.js';
import { serveApp } from '../../testing/test-server.js';
import { postgresSkip, startPostgres } from './pg-testing.js';
import { waitFor } from '../../testing/wait-for.js';
import { startExampleReceiver } from '../../../scripts/example-receiver.js';
import { startRelayClient } from '../../../contracts/clients/relay-client.js';
import { WebSocket } from 'ws';
import type { TraceRecord } from '../../trace/trace.js';
import type { TerminalRecord } from '../../terminals/terminal.js';
import { settlementKey } from '../../settlements/settlement.js';

const batch = (batchNumber: string, overrides: Record<string, unknown> = {}) => ({
  batchNumber,
  transactionCount: 12,
  closedAt: '2026-11-21T09:30:00.000Z',
  currencyReference: 'USD',
  terminal: 'TWO-1',
  debitBatch: 'DB-0001',
  ...overrides,
});

/** The text of every statement the store sends that touches signatures, settlements or orders (background passes touch none). */
function countStatements(store: PgStore): string[] {
  const pool = (store as unknown as { pool: { query: (...args: unknown[]) => unknown } }).pool;
  const texts: string[] = [];
  const query = pool.query.bind(pool);
  pool.query = (...args: unknown[]) => {
    const config = args[0] as string | { text: string };
    const text = typeof config === 'string' ? config : config.text;
    if (/pos_signatures|settlements|orders/.test(text)) texts.push(text);
    return query(...args);
  };
  return texts;
}

/** Two server instances, each with its own connection pool, on one database. */
async function twoInstances(t: Test) {
  const connectionString = startPostgres(t);
  const clock = new ManualClock(Date.now());
  const instances = [];
  for (let i = 0; i < 2; i += 1) {
    const store = await PgStore.open({ connectionString });
    const { app, baseUrl, api, stop } = await serveApp({
      store,
      sharing: 'instances',
      clock,
      config: { ...defaultConfig, scryptCost: 1024, logLevel: 'silent' },
    });
    t.teardown(stop);
    instances.push({ app, baseUrl, api, store });
  }
  const [a, b] = instances as [(typeof instances)[0], (typeof instances)[0]];
  const account = (await a.api.post('/console/register', { json: { email: 'two@example.com', password: '12345678' } }))
    .body;
  const terminal = (
    await a.api.post(`/api/v1/merchants/${account.merchant_id}/pos-terminals`, {
      json: { serialNumber: 'TWO-1' },
      token: account.key.token,
    })
  ).body;
  return { a, b, clock, account, terminal };
}

t.test('a POS signature accepted by one instance is a replay on the other', { skip: postgresSkip() }, async (t) => {
  const { a, b, clock, terminal } = await twoInstances(t);
  const url = '/api/v1/pos-terminals/TWO-1/transactions';
  const headers = signPosRequest({ secret: terminal.secret, method: 'GET', url, now: clock.now() });
  t.equal((await a.api.get(url, { headers })).status, 200);
  const replay = await b.api.get(url, { headers });
  t.equal(replay.status, 401);
  t.equal(replay.body.code, 'SIGNATURE_REPLAYED');
});

t.test(
  'a secret rotated on one instance stops the old one at once on the other, which knew the terminal',
  { skip: postgresSkip() },
  async (t) => {
    const { a, b, clock, account, terminal } = await twoInstances(t);
    const url = '/api/v1/pos-terminals/TWO-1/transactions';
    let at = clock.now();
    const signed = (secret: string) => signPosRequest({ secret, method: 'GET', url, now: ++at });
    // A learns the terminal (and keeps its secret) by serving it.
    t.equal((await a.api.get(url, { headers: signed(terminal.secret) })).status, 200);
    t.equal((await a.api.get(url, { headers: signed(terminal.secret) })).status, 200, 'served again from what A knows');
    const rotated = (
      await b.api.post(`/api/v1/merchants/${account.merchant_id}/pos-terminals/TWO-1/secret`, {
        token: account.key.token,
      })
    ).body;
    t.not(rotated.secret, terminal.secret);
    const old = await a.api.get(url, { headers: signed(terminal.secret) });
    t.equal(old.status, 401, 'the old secret is refused by A the first time after the rotation');
    t.equal(old.body.code, 'SIGNATURE_INVALID');
    t.equal((await a.api.get(url, { headers: signed(rotated.secret) })).status, 200, 'the new one works on A');
    t.equal((await a.api.get(url, { headers: signed(terminal.secret) })).status, 401, 'and the old one stays refused');
    t.equal((await b.api.get(url, { headers: signed(rotated.secret) })).status, 200, 'and on B');
  },
);

t.test('signed writes on two instances, one database', { skip: postgresSkip() }, async (t) => {
  // One world for the three, in this order: the last deletes the terminal.
  const { a, b, clock, account } = await twoInstances(t);
  const url = '/api/v1/pos-terminals/TWO-1/settlements';
  const { secret } = (await a.store.get<TerminalRecord>('terminals', 'TWO-1'))!;
  let at = clock.now();
  const post = (
    on: typeof a,
    body: object,
    headers = signPosRequest({ secret, method: 'POST', url, body: JSON.stringify(body), now: ++at }),
  ) => on.api.post(url, { json: body, headers }).then((response) => ({ ...response, headers }));
  const statements = countStatements(a.store);

  await t.test(
    'each claims its signature with its insert: one statement, one commit; replays refused on either instance',
    async (t) => {
      t.equal((await post(a, batch('B1'))).status, 200, 'A reads the terminal and learns it');
      statements.length = 0;
      const second = await post(a, batch('B2'));
      t.equal(second.status, 200);
      t.equal(second.body.detail, 'settlement registered');
      t.equal(statements.length, 1, 'a terminal A knows: one statement for the whole request');
      t.match(
        statements[0],
        /^\s*INSERT INTO "settlements" \(id, data, claim_id, claim_live_until\)\s+SELECT/,
        'the claim and the insert together, kept in the row written: one INSERT … SELECT',
      );

      const replayed = await b.api.post(url, { json: batch('B2'), headers: second.headers });
      t.equal(replayed.status, 401, 'the same signature on the other instance');
      t.equal(replayed.body.code, 'SIGNATURE_REPLAYED');
      t.equal(
        (await a.api.post(url, { json: batch('B2'), headers: second.headers })).body.code,
        'SIGNATURE_REPLAYED',
        'and on the same one',
      );
      const again = await post(a, batch('B2'));
      t.equal(again.status, 200, 'signed anew, the same batch is an idempotent replay');
      t.match(again.body.detail, /already registered/);
      t.equal(
        (await post(a, batch('B2', { transactionCount: 99 }))).body.code,
        'SETTLEMENT_CONFLICT',
        'other fields: 409, the signature claimed with the read',
      );

      // Refused before its write: the handler's own error is the answer, and the claim is made all the same.
      const refused = await post(a, batch('B3', { terminal: 'OTHER' }));
      t.equal(refused.status, 400);
      const refusedAgain = await a.api.post(url, {
        json: batch('B3', { terminal: 'OTHER' }),
        headers: refused.headers,
      });
      t.equal(refusedAgain.body.code, 'VALIDATION_FAILED', 'the same bytes again: the same refusal, nothing written');
      t.equal(await a.store.count('settlements'), 2, 'B1 and B2, each once');
    },
  );

  await t.test("the account's clock moved on the other instance: stamped on the clock as it is now", async (t) => {
    const hour = 3_600_000;
    t.equal((await b.api.post('/control/clock/advance', { json: { ms: hour }, token: account.key.token })).status, 200);
    statements.length = 0;
    const moved = await post(a, batch('B4'));
    t.equal(moved.status, 200);
    t.equal(moved.body.detail, 'settlement registered');
    t.equal(
      statements.length,
      3,
      'the usual insert found the clock moved; the claim step said so and made the claim; the record built anew is written on its own',
    );
    t.match(statements[1], /INSERT INTO "pos_signatures"/, 'the claim a marker, as nothing was written with it');
    const stored = await a.store.get<{ receivedAt: string }>('settlements', settlementKey('TWO-1', 'B4'));
    t.equal(stored!.receivedAt, new Date(clock.now() + hour).toISOString(), "received on the account's clock as moved");
    statements.length = 0;
    t.equal((await post(a, batch('B5'))).status, 200);
    t.equal(statements.length, 1, 'and A knows it from then on');
  });

  await t.test(
    'a payment confirmation and a void: the order read, then its update with the claim in one statement',
    async (t) => {
      const order = (
        await b.api.post(`/api/v1/merchants/${account.merchant_id}/transactions`, {
          json: { terminal: 'TWO-1', amount: 1500, currency: 'USD' },
          token: account.key.token,
        })
      ).body.data;
      const commitUrl = `/api/v1/pos-terminals/TWO-1/transactions/${order.orderId}/commit`;
      const body = JSON.stringify({ authorizationCode: 'A1', paidAt: new Date(clock.now()).toISOString() });
      const headers = signPosRequest({ secret, method: 'POST', url: commitUrl, body, now: ++at });
      statements.length = 0;
      const paid = await a.api.post(commitUrl, {
        raw: body,
        headers: { ...headers, 'content-type': 'application/json' },
      });
      t.equal(paid.status, 200);
      t.equal(paid.body.data.status, 'PAID');
      t.equal(statements.length, 2, 'two statements: the order read, then its update with the claim');
      t.match(statements[1], /INSERT INTO "pos_signatures"[\s\S]*UPDATE "orders"/);
      t.equal(
        (await b.api.post(commitUrl, { raw: body, headers: { ...headers, 'content-type': 'application/json' } })).body
          .code,
        'SIGNATURE_REPLAYED',
        'its signature, on the other instance',
      );
      const again = await a.api.post(commitUrl, {
        raw: body,
        headers: {
          ...signPosRequest({ secret, method: 'POST', url: commitUrl, body, now: ++at }),
          'content-type': 'application/json',
        },
      });
      t.equal(again.status, 200, 'signed anew: already PAID, nothing changed');
      t.match(again.body.detail, /already PAID/);
      t.equal(
        (
          await b.api.post(`/api/v1/merchants/${account.merchant_id}/transactions/${order.orderId}/invalidation`, {
            token: account.key.token,
          })
        ).body.data.status,
        'VOID_PENDING',
      );
      const voidUrl = `/api/v1/pos-terminals/TWO-1/transactions/${order.orderId}/invalidation/commit`;
      statements.length = 0;
      const voided = await a.api.post(voidUrl, {
        headers: signPosRequest({ secret, method: 'POST', url: voidUrl, now: ++at }),
      });
      t.equal(voided.status, 200);
      t.equal(voided.body.data.status, 'VOIDED');
      t.equal(statements.length, 2);
      const history = (
        await a.store.get<{ history: Array<{ at: string }> }>('orders', `${account.merchant_id}/${order.orderId}`)
      )?.history;
      t.equal(
        history?.at(-1)?.at,
        new Date(clock.now() + 3_600_000).toISOString(),
        "on the account's clock as it is now (moved by an hour above)",
      );
    },
  );

  await t.test('the terminal deleted on the other instance signs nothing on the one that knew it', async (t) => {
    await b.store.transact((tx) => tx.delete('terminals', 'TWO-1')); // no operation deletes one; a reset or an operator could
    const refused = await post(a, batch('B6'));
    t.equal(refused.status, 401);
    t.equal(refused.body.code, 'SIGNATURE_INVALID');
    t.equal(await a.store.get('settlements', settlementKey('TWO-1', 'B6')), undefined, 'nothing written');
  });
});

t.test("the rate brake counts an account's requests across instances", { skip: postgresSkip() }, async (t) => {
  const { a, b, account } = await twoInstances(t);
  await a.api.put('/console/rate-limit', { json: { per_minute: 2 }, token: account.console_token });
  t.equal((await a.api.get('/control/clock', { token: account.key.token })).status, 200);
  t.equal((await b.api.get('/control/clock', { token: account.key.token })).status, 200);
  const third = await a.api.get('/control/clock', { token: account.key.token });
  t.equal(third.status, 429, 'the third request of the minute, whichever instance gets it');
  t.equal((await b.api.get('/control/clock', { token: account.key.token })).status, 429);
});

t.test(
  'the discard/commit race split across two instances keeps every invariant',
  { skip: postgresSkip() },
  async (t) => {
    const { a, b, account, terminal } = await twoInstances(t);
    // The merchant talks to instance A, the terminal to instance B: the race scenarios played through a proxy that splits them.
    const split = await startSplitProxy(a.baseUrl, b.baseUrl);
    t.teardown(split.close);
    const given = { account, terminal };
    const runs: OrderRun[] = [];
    const files = (await bundledRaceFiles()).filter((file) =>
      /race-(simultaneous|merchant-delayed|lost-answer-retry)\.json$/.test(file),
    );
    for (const race of await loadRaceScenarios(files)) {
      const played = await playRace(split.baseUrl, given, race, 15, 11);
      t.same(played.failures, [], `${race.name}: every expectation held`);
      runs.push(...played.runs);
    }
    t.same(checkInvariants(runs), [], `${runs.length} orders, no invariant broken`);
  },
);

t.test(
  'a relay connected to one instance receives the deliveries another instance makes',
  { skip: postgresSkip() },
  async (t) => {
    const { a, b, clock, account } = await twoInstances(t);
    const events: string[] = [];
    const receiver = await startExampleReceiver({
      secret: account.key.webhook_secret,
      now: () => clock.now(),
      onEvent: (event) => events.push(event.event),
    });
    t.teardown(() => receiver.server.close());
    const client = startRelayClient({
      baseUrl: a.baseUrl,
      token: account.key.token,
      forwardTo: receiver.url,
      log: () => undefined,
    });
    t.teardown(() => client.stop());
    await client.connected;

    // The session is created on B, so B's dispatcher claims its events; the relay is on A.
    const agreement = (
      await b.api.post('/api/v1/ext/agreements', {
        json: { name: 'Shop', currency_reference: 'USD', split: false, payment_methods: ['transfer'] },
        token: account.key.token,
      })
    ).body;
    const session = (
      await b.api.post('/api/v1/ext/payment-sessions/buttons', {
        json: { agreement_id: agreement.agreement_id, amount_reference: 10, webhook_url: 'http://localhost:4000/hook' },
        token: account.key.token,
      })
    ).body;
    await b.api.post(`/control/sessions/${session.session_id}/outcome`, {
      json: { leg: 1, outcome: 'paid' },
      token: account.key.token,
    });
    while ((await b.app.jobs.dispatcher.runDue()) > 0);
    t.same(
      events,
      ['payment_session.created', 'payment_session.paid'],
      'received through the relay on the other instance, in order',
    );
    t.equal(receiver.rejected, 0, 'every signature verified');
    const attempts = await b.store.list<TraceRecord>('trace', {
      where: { account_id: account.account_id, type: 'webhook.attempt' },
    });
    t.same(
      attempts.map((entry) => [entry.routing, entry.status]),
      [
        ['relay', 200],
        ['relay', 200],
      ],
    );
  },
);

t.test(
  "a relay connecting to one instance replaces the same key's relay on another, with code 4000",
  { skip: postgresSkip() },
  async (t) => {
    const { a, b, account } = await twoInstances(t);
    const first = new WebSocket(`${a.baseUrl.replace('http', 'ws')}/relay`, {
      headers: { authorization: `Bearer ${account.key.token}` },
    });
    await new Promise((resolve) => first.on('open', resolve));
    const closed = new Promise<number>((resolve) => first.on('close', (code) => resolve(code)));
    const second = new WebSocket(`${b.baseUrl.replace('http', 'ws')}/relay`, {
      headers: { authorization: `Bearer ${account.key.token}` },
    });
    t.teardown(() => second.close());
    await new Promise((resolve) => second.on('open', resolve));
    t.equal(await closed, 4000);
    t.ok(b.app.jobs.relay.isConnected(account.account_id), 'the newer relay holds the key');
    // The server side lets go once the close handshake ends, which may be after the client saw it.
    await waitFor(() => !a.app.jobs.relay.isConnected(account.account_id), 1000, 'the older relay to close').catch(
      () => undefined,
    );
    t.notOk(a.app.jobs.relay.isConnected(account.account_id), 'the older is gone');
  },
);
