import t from 'tap';
import { signPosRequest } from '../../contracts/clients/pos-client.js';
import { purgeExpired } from '../console/purge.js';
import { orderKey } from '../orders/order.js';
import { settlementFields, settlementKey } from '../settlements/settlement.js';
import { merchantWithTerminal, startTestServer } from '../testing/test-server.js';
import { traceEntry } from '../trace/trace.js';

// Each list of the API, over thousands of records that are not asked for,
// examines at most offset + limit records (plus a few at the edges of a
// walk): a request costs the same whatever the collection's size.

const SLACK = 3;
const OTHERS = 3000;

t.test('orders, settlements and the trace examine about offset + limit records, however many there are', async (t) => {
  const server = await startTestServer(t);
  const merchant = await merchantWithTerminal(server);
  const other = await merchantWithTerminal(server);
  const token = merchant.account.key.token;
  const at = (i: number) => new Date(Date.parse('2026-01-01T00:00:00.000Z') + i * 60_000).toISOString();

  // Records of this merchant and terminal, and many more of another merchant, account and terminal.
  await server.store.transact((tx) => {
    for (let i = 0; i < OTHERS; i += 1) {
      for (const [owner, count] of [
        [merchant, 300],
        [other, OTHERS],
      ] as const) {
        if (i >= count) continue;
        const orderId = `o-${i}`;
        tx.put('orders', orderKey(owner.account.merchant_id, orderId), {
          orderId,
          merchantId: owner.account.merchant_id,
          terminal: owner.serialNumber,
          amount: 100 + i,
          currency: 'USD',
          status: i % 3 === 0 ? 'PAID' : 'PENDING',
          createdAt: at(i),
          updatedAt: at(i),
          history: [],
          account_id: owner.account.account_id,
        });
        tx.put('settlements', settlementKey(owner.serialNumber, `B${i}`), {
          batchNumber: `B${String(i).padStart(5, '0')}`,
          transactionCount: i % 50,
          closedAt: at(i),
          currencyReference: 'USD',
          terminal: owner.serialNumber,
          debitBatch: `D${(i * 7919) % 10_000}`,
          merchantId: owner.account.merchant_id,
          receivedAt: at(i),
        });
        const entry = traceEntry(owner.account.account_id, i % 2 ? 'webhook.attempt' : 'session.created', at(i), {
          session_id: `ses_${i % 10}`,
        });
        tx.put('trace', entry.id, entry);
      }
    }
  });

  const examinedBy = async (
    what: string,
    send: () => Promise<{ status: number; body: { data: unknown[] } }>,
    bound: number,
  ) => {
    const before = server.store.examined;
    const answer = await send();
    t.equal(answer.status, 200, what);
    const examined = server.store.examined - before;
    t.ok(
      examined <= bound + SLACK,
      `${what}: examined ${examined} for a page of ${answer.body.data.length} (bound ${bound})`,
    );
  };
  const get =
    (path: string, auth = token) =>
    () =>
      server.api.get(path, { token: auth });
  let signedAt = server.clock.now();
  const signed = (url: string) => () =>
    server.api.get(url, {
      headers: signPosRequest({ secret: merchant.secret, method: 'GET', url, now: (signedAt += 1) }),
    });

  for (const [query, offset, size] of [
    ['size=20', 0, 20],
    ['size=5&page=7', 30, 5],
    ['status=PAID&size=10&page=3', 20, 10],
    ['size=100&page=2', 100, 100],
  ] as const) {
    await examinedBy(`merchant orders ?${query}`, get(`${merchant.merchantPath}/transactions?${query}`), offset + size);
    await examinedBy(
      `terminal orders ?${query}`,
      signed(`/api/v1/pos-terminals/${merchant.serialNumber}/transactions?${query}`),
      offset + size,
    );
  }
  const settlementsPath = `${merchant.merchantPath}/pos-terminals/${merchant.serialNumber}/settlements`;
  for (const field of settlementFields) {
    for (const sort of [field, `-${field}`])
      await examinedBy(`settlements sort=${sort}&size=1`, get(`${settlementsPath}?sort=${sort}&size=1`), 1);
  }
  await examinedBy('settlements size=10&page=4', get(`${settlementsPath}?sort=-closedAt&size=10&page=4`), 40);
  await examinedBy(
    'settlements from/to',
    get(`${settlementsPath}?sort=closedAt&from=${at(100)}&to=${at(200)}&size=5&page=2`),
    10,
  );
  const ct = merchant.account.console_token;
  await examinedBy('trace limit=50', get('/console/trace?limit=50', ct), 50);
  await examinedBy('trace by type', get('/console/trace?type=webhook.attempt&limit=20', ct), 20);
  await examinedBy('trace by session', get('/console/trace?session_id=ses_3&limit=10', ct), 10);
  await examinedBy(
    'trace by type and session',
    get('/console/trace?type=session.created&session_id=ses_4&limit=10', ct),
    10,
  );
  const { cursor } = (await server.api.get('/console/trace?limit=1', { token: ct })).body;
  await examinedBy('a live poll of the trace with nothing new', get(`/console/trace?after=${cursor}`, ct), 0);
  await examinedBy(
    'a live poll by session with nothing new',
    get(`/console/trace?after=${cursor}&session_id=ses_3`, ct),
    0,
  );
});

t.test(
  'the data-lifetime purge of an account examines only what is past its lifetime, not the whole trace',
  async (t) => {
    const server = await startTestServer(t);
    const merchant = await merchantWithTerminal(server);
    const now = server.clock.now();
    const day = 86_400_000;
    await server.store.transact((tx) => {
      for (let i = 0; i < 3000; i += 1) {
        // 20 of this account's entries are past the 14 days; the rest are recent, or another account's.
        const old = i < 20;
        const owner = old || i % 2 ? merchant.account.account_id : 'acc_someone_else';
        const entry = traceEntry(owner, 'session.created', new Date(now - (old ? 20 * day : day) + i).toISOString());
        tx.put('trace', entry.id, entry);
      }
    });
    const before = server.store.examined;
    const deleted = await purgeExpired(server.store, server.clock, 14, merchant.account.account_id);
    const examined = server.store.examined - before;
    t.equal(deleted, 20, 'the 20 old entries went');
    t.ok(examined <= 20 + 10 * SLACK, `examined ${examined} records for 20 deleted among 3,000`);
    const left = await server.store.list('trace', {
      where: { account_id: merchant.account.account_id, type: 'session.created' },
      orderBy: { field: 'listed', direction: 'asc' },
    });
    t.equal(left.length, 1490, 'the recent ones stay');
  },
);

t.test(
  'the console checklist looks up one entry per step, however long the trace and however many attempts failed',
  async (t) => {
    const server = await startTestServer(t);
    const merchant = await merchantWithTerminal(server);
    const id = merchant.account.account_id;
    const at = (i: number) => new Date(Date.parse('2026-01-01T00:00:00.000Z') + i * 1000).toISOString();
    await server.store.transact((tx) => {
      for (let i = 0; i < OTHERS; i += 1) {
        // Thousands of failed attempts and sessions not paid, the steps they do not complete; then one success of each kind.
        const entries = [
          traceEntry(id, 'webhook.attempt', at(i), {
            status: 500,
            result: 'failed',
            event: 'payment_session.accredited',
          }),
          traceEntry(id, 'session.status_changed', at(i), { to: 'expired' }),
          traceEntry(id, 'webhook.received', at(i), { receiver: 'captura' }),
          traceEntry('acc_someone_else', 'session.created', at(i)),
        ];
        for (const entry of entries) tx.put('trace', entry.id, entry);
      }
      for (const entry of [
        traceEntry(id, 'session.created', at(OTHERS)),
        traceEntry(id, 'session.status_changed', at(OTHERS + 1), { to: 'paid' }),
        traceEntry(id, 'webhook.attempt', at(OTHERS + 2), {
          status: 200,
          result: 'succeeded',
          event: 'payment_session.paid',
        }),
      ])
        tx.put('trace', entry.id, entry);
    });
    const before = server.store.examined;
    const answer = await server.api.get('/console/progress', { token: merchant.account.console_token });
    const examined = server.store.examined - before;
    t.equal(answer.status, 200);
    t.ok(answer.body.steps[0].done, 'registered');
    const done = Object.fromEntries(
      (answer.body.steps as Array<{ id: string; done: boolean; at?: string }>).map((step) => [
        step.id,
        step.at ?? false,
      ]),
    );
    t.same(
      done,
      {
        registered: done.registered,
        agreement_created: false,
        session_created: at(OTHERS),
        session_paid: at(OTHERS + 1),
        webhook_delivered: at(OTHERS + 2),
        accredited_delivered: false,
        relay_connected: false,
        failing_receiver_exercised: false,
      },
      'each step done at its first completing entry, and only those',
    );
    t.ok(examined <= 8 + SLACK, `examined ${examined} records for 8 steps among ${OTHERS * 4} trace entries`);
  },
);

t.test("the console's sessions come a page at a time, examining about offset + limit sessions", async (t) => {
  const server = await startTestServer(t);
  const merchant = await merchantWithTerminal(server);
  const token = merchant.account.key.token;
  const agreement = (
    await server.api.post('/api/v1/ext/agreements', {
      json: { name: 'Shop', currency_reference: 'USD', split: false, payment_methods: ['transfer'] },
      token,
    })
  ).body;
  const created: string[] = [];
  for (let i = 0; i < 25; i += 1, server.clock.advance(1000))
    created.unshift(
      (
        await server.api.post('/api/v1/ext/payment-sessions/buttons', {
          json: { agreement_id: agreement.agreement_id, amount_reference: 10 + i },
          token,
        })
      ).body.session_id,
    );
  await server.store.transact((tx) => {
    for (let i = 0; i < OTHERS; i += 1)
      tx.put('sessions', `ses_other_${i}`, {
        session_id: `ses_other_${i}`,
        account_id: 'acc_someone_else',
        created_at: new Date(Date.parse('2026-01-01T00:00:00.000Z') + i).toISOString(),
      });
  });
  const ct = merchant.account.console_token;
  for (const [page, expected] of [
    [1, created.slice(0, 10)],
    [2, created.slice(10, 20)],
    [3, created.slice(20)],
  ] as const) {
    const before = server.store.examined;
    const answer = await server.api.get(`/console/sessions?limit=10&page=${page}`, { token: ct });
    const examined = server.store.examined - before;
    t.same(
      answer.body.data.map((s: { session_id: string }) => s.session_id),
      expected,
      `page ${page}, newest first`,
    );
    t.ok(examined <= page * 10 + SLACK, `page ${page}: examined ${examined}`);
  }
  t.equal((await server.api.get('/console/sessions?limit=0', { token: ct })).status, 400, 'a limit below 1 is refused');
  t.equal(
    (await server.api.get('/console/sessions?page=101', { token: ct })).status,
    400,
    'pages past the 100th are refused',
  );
  t.equal((await server.api.get('/console/sessions', { token: ct })).body.data.length, 25, '100 by default');
});
