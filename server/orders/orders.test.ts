import t from 'tap';
import { merchantWithTerminal, registerAccount, signingClock, startTestServer } from '../testing/test-server.js';

t.test('an order is created PENDING inside the envelope, and read back', async (t) => {
  const server = await startTestServer(t);
  const { account, merchantPath, serialNumber } = await merchantWithTerminal(server);
  const created = await server.api.post(`${merchantPath}/transactions`, {
    json: { orderId: 'ord-1', terminal: serialNumber, amount: 2599, currency: 'EUR', description: 'two coffees' },
    token: account.key.token,
  });
  t.equal(created.status, 201);
  t.match(created.body, {
    title: String,
    data: {
      orderId: 'ord-1',
      merchantId: account.merchant_id,
      terminal: serialNumber,
      amount: 2599,
      currency: 'EUR',
      status: 'PENDING',
      history: [],
    },
  });
  const read = await server.api.get(`${merchantPath}/transactions/ord-1`, { token: account.key.token });
  t.same(read.body.data, created.body.data);
  const generated = await server.api.post(`${merchantPath}/transactions`, {
    json: { terminal: serialNumber, amount: 1, currency: 'USD' },
    token: account.key.token,
  });
  t.match(generated.body.data.orderId, /^ord_[0-9a-f]{18}$/, 'an orderId is generated when absent');
});

t.test(
  'order creation refuses a taken orderId (409), a foreign or unknown terminal (404) and bad fields (400)',
  async (t) => {
    const server = await startTestServer(t);
    const { account, merchantPath, serialNumber, createOrder } = await merchantWithTerminal(server);
    await createOrder({ orderId: 'dup' });
    const dup = await server.api.post(`${merchantPath}/transactions`, {
      json: { orderId: 'dup', terminal: serialNumber, amount: 1, currency: 'USD' },
      token: account.key.token,
    });
    t.equal(dup.status, 409);
    const other = await merchantWithTerminal(server);
    const foreign = await server.api.post(`${merchantPath}/transactions`, {
      json: { terminal: other.serialNumber, amount: 1, currency: 'USD' },
      token: account.key.token,
    });
    t.equal(foreign.status, 404);
    t.equal(foreign.body.code, 'NOT_FOUND');
    const bad = await server.api.post(`${merchantPath}/transactions`, {
      json: { orderId: 'bad id!', terminal: serialNumber, amount: 0, currency: 'usd' },
      token: account.key.token,
    });
    t.equal(bad.status, 400);
    t.same(bad.body.details.map((d: { pointer: string }) => d.pointer).sort(), ['/amount', '/currency', '/orderId']);
    const fractional = await server.api.post(`${merchantPath}/transactions`, {
      json: { terminal: serialNumber, amount: 1.5, currency: 'USD' },
      token: account.key.token,
    });
    t.equal(fractional.status, 400, 'amounts are integers in minor units');
  },
);

t.test('lists filter by status, page newest first, and refuse out-of-range paging', async (t) => {
  const server = await startTestServer(t);
  const { account, merchantPath, pos, createOrder } = await merchantWithTerminal(server);
  for (let i = 0; i < 5; i += 1) {
    await createOrder({ orderId: `o${i}` });
    server.clock.advance(1000);
  }
  await server.api.post(`${merchantPath}/transactions/o1/invalidation`, { token: account.key.token });
  const all = await server.api.get(`${merchantPath}/transactions`, { token: account.key.token });
  t.same(
    all.body.data.map((o: { orderId: string }) => o.orderId),
    ['o4', 'o3', 'o2', 'o1', 'o0'],
  );
  const discarded = await server.api.get(`${merchantPath}/transactions?status=DISCARDED`, { token: account.key.token });
  t.same(
    discarded.body.data.map((o: { orderId: string }) => o.orderId),
    ['o1'],
  );
  const page2 = await server.api.get(`${merchantPath}/transactions?size=2&page=2`, { token: account.key.token });
  t.same(
    page2.body.data.map((o: { orderId: string }) => o.orderId),
    ['o2', 'o1'],
  );
  const beyond = await server.api.get(`${merchantPath}/transactions?size=2&page=9`, { token: account.key.token });
  t.same(beyond.body.data, [], 'a page past the end is empty');
  for (const query of ['size=0', 'size=101', 'page=0', 'status=LOST', 'size=abc']) {
    const response = await server.api.get(`${merchantPath}/transactions?${query}`, { token: account.key.token });
    t.equal(response.status, 400, query);
    t.equal(response.body.details[0].in, 'query', query);
  }
  const terminalList = await pos.listOrders({ status: 'PENDING' });
  t.same(
    terminalList.body.data.map((o: { orderId: string }) => o.orderId),
    ['o4', 'o3', 'o2', 'o0'],
  );
});

t.test('a terminal sees and works only its own orders', async (t) => {
  const server = await startTestServer(t);
  const first = await merchantWithTerminal(server);
  const order = await first.createOrder();
  // A second terminal of the same merchant.
  const provisioned = await server.api.post(`${first.merchantPath}/pos-terminals`, {
    json: { serialNumber: `${first.serialNumber}-2` },
    token: first.account.key.token,
  });
  const { PosClient } = await import('../../contracts/clients/pos-client.js');
  const { validatingFetch } = await import('../../contracts/testing/contract-client.js');
  const second = new PosClient({
    baseUrl: server.baseUrl,
    serialNumber: `${first.serialNumber}-2`,
    secret: provisioned.body.secret,
    now: signingClock(server),
    fetch: validatingFetch(),
  });
  t.same((await second.listOrders()).body.data, []);
  const commit = await second.commitPayment(order.orderId, {
    authorizationCode: 'A1',
    paidAt: new Date(server.clock.now()).toISOString(),
  });
  t.equal(commit.status, 404);
});

t.test('the whole life of an order through the API: paid, void requested, voided', async (t) => {
  const server = await startTestServer(t);
  const { account, merchantPath, pos, createOrder } = await merchantWithTerminal(server);
  const { orderId } = await createOrder();
  const paidAt = new Date(server.clock.now()).toISOString();
  const paid = await pos.commitPayment(orderId, { authorizationCode: 'AUTH42', paidAt, amount: 1500 });
  t.match(paid.body.data, { status: 'PAID', authorizationCode: 'AUTH42', paidAt });
  const again = await pos.commitPayment(orderId, { authorizationCode: 'AUTH42', paidAt });
  t.equal(again.status, 200, 'the same confirmation again changes nothing');
  t.equal(again.body.data.history.length, 1);
  const other = await pos.commitPayment(orderId, { authorizationCode: 'OTHER', paidAt });
  t.equal(other.status, 409);
  t.match(other.body, { code: 'ORDER_STATE_CONFLICT', currentStatus: 'PAID' });
  server.clock.advance(60_000);
  const voidRequested = await server.api.post(`${merchantPath}/transactions/${orderId}/invalidation`, {
    json: { reason: 'refund asked' },
    token: account.key.token,
  });
  t.equal(voidRequested.body.data.status, 'VOID_PENDING');
  t.same(
    (await pos.listOrders({ status: 'VOID_PENDING' })).body.data.map((o: { orderId: string }) => o.orderId),
    [orderId],
  );
  const voided = await pos.commitVoid(orderId);
  t.equal(voided.body.data.status, 'VOIDED');
  t.same(
    voided.body.data.history.map((h: { from: string; to: string; actor: string }) => `${h.actor}:${h.from}->${h.to}`),
    ['pos:PENDING->PAID', 'merchant:PAID->VOID_PENDING', 'pos:VOID_PENDING->VOIDED'],
  );
  t.equal(voided.body.data.history[1].reason, 'refund asked');
  const late = await server.api.post(`${merchantPath}/transactions/${orderId}/invalidation`, {
    token: account.key.token,
  });
  t.equal(late.status, 409, 'invalidating a VOIDED order');
  const mismatch = await pos.commitPayment((await createOrder()).orderId, {
    authorizationCode: 'A',
    paidAt,
    amount: 1,
  });
  t.equal(mismatch.status, 422);
  t.equal(mismatch.body.code, 'AMOUNT_MISMATCH');
});

t.test('a commit after a discard records the payment and marks the discard overridden', async (t) => {
  const server = await startTestServer(t);
  const { account, merchantPath, pos, createOrder } = await merchantWithTerminal(server);
  const { orderId } = await createOrder();
  const discarded = await server.api.post(`${merchantPath}/transactions/${orderId}/invalidation`, {
    token: account.key.token,
  });
  t.equal(discarded.body.data.status, 'DISCARDED');
  const paid = await pos.commitPayment(orderId, {
    authorizationCode: 'LATE1',
    paidAt: new Date(server.clock.now()).toISOString(),
  });
  t.equal(paid.body.data.status, 'PAID');
  t.match(paid.body.data.history.at(-1), {
    from: 'DISCARDED',
    to: 'PAID',
    trigger: 'commit',
    actor: 'pos',
    overridesDiscard: true,
  });
});

t.test("another merchant's orders answer 404", async (t) => {
  const server = await startTestServer(t);
  const owner = await merchantWithTerminal(server);
  const { orderId } = await owner.createOrder();
  const stranger = await registerAccount(server.api);
  for (const path of [
    `${owner.merchantPath}/transactions/${orderId}`,
    `/api/v1/merchants/${stranger.merchant_id}/transactions/${orderId}`,
  ]) {
    t.equal((await server.api.get(path, { token: stranger.key.token })).status, 404);
  }
  const invalidate = await server.api.post(
    `/api/v1/merchants/${stranger.merchant_id}/transactions/${orderId}/invalidation`,
    { token: stranger.key.token },
  );
  t.equal(invalidate.status, 404);
});

t.test('race: 200 orders each get an invalidation and a commit at the same moment', async (t) => {
  const server = await startTestServer(t);
  const { account, merchantPath, pos, createOrder } = await merchantWithTerminal(server);
  const orders = [];
  for (let i = 0; i < 200; i += 1) orders.push(await createOrder({ orderId: `race-${i}` }));
  const paidAt = new Date(server.clock.now()).toISOString();

  const results = await Promise.all(
    orders.map(async ({ orderId }) => {
      const [invalidation, commit] = await Promise.all([
        server.api.post(`${merchantPath}/transactions/${orderId}/invalidation`, { token: account.key.token }),
        pos.commitPayment(orderId, { authorizationCode: `A${orderId.slice(5)}`, paidAt }),
      ]);
      return { orderId, invalidation, commit };
    }),
  );

  const orderings = { invalidationFirst: 0, commitFirst: 0 };
  for (const { orderId, invalidation, commit } of results) {
    t.ok(
      [200, 409].includes(invalidation.status) && [200, 409].includes(commit.status),
      `${orderId}: every answer is 2xx or 409`,
    );
    const final = (await server.api.get(`${merchantPath}/transactions/${orderId}`, { token: account.key.token })).body
      .data;
    const path = final.history.map((h: { from: string; to: string }) => `${h.from}->${h.to}`).join(',');
    // The two legal orders of application: invalidation then commit, or commit then invalidation.
    if (path === 'PENDING->DISCARDED,DISCARDED->PAID') {
      orderings.invalidationFirst += 1;
      t.equal(final.status, 'PAID');
      t.equal(final.history[1].overridesDiscard, true);
      t.equal(invalidation.body.data.status, 'DISCARDED', 'the merchant was told DISCARDED');
      t.equal(commit.body.data.status, 'PAID');
    } else if (path === 'PENDING->PAID,PAID->VOID_PENDING') {
      orderings.commitFirst += 1;
      t.equal(final.status, 'VOID_PENDING', 'money collected and a void asked: it goes through VOID_PENDING');
      t.equal(commit.body.data.status, 'PAID');
      t.equal(invalidation.body.data.status, 'VOID_PENDING');
    } else {
      t.fail(`${orderId}: history ${path} is not one the table allows`);
    }
  }
  t.equal(orderings.invalidationFirst + orderings.commitFirst, 200, `orderings seen: ${JSON.stringify(orderings)}`);
});

t.test(
  "after the account's clock moved ahead, a terminal's paidAt is kept on the account's clock, never before createdAt",
  async (t) => {
    const server = await startTestServer(t);
    const { account, pos, createOrder } = await merchantWithTerminal(server);
    const day = 86_400_000;
    t.equal(
      (await server.api.post('/control/clock/advance', { json: { ms: day }, token: account.key.token })).status,
      200,
    );
    const { orderId } = await createOrder();
    const terminalNow = new Date(server.clock.now()).toISOString(); // the terminal's clock did not move
    const paid = await pos.commitPayment(orderId, { authorizationCode: 'DAY1', paidAt: terminalNow });
    t.equal(paid.status, 200);
    const order = paid.body.data;
    t.equal(order.paidAt, new Date(Date.parse(terminalNow) + day).toISOString(), 'moved by the account offset');
    t.ok(
      Date.parse(order.paidAt) >= Date.parse(order.createdAt),
      `paidAt ${order.paidAt} is not before createdAt ${order.createdAt}`,
    );
    t.equal(
      (await pos.commitPayment(orderId, { authorizationCode: 'DAY1', paidAt: terminalNow })).status,
      200,
      'the same confirmation again',
    );
  },
);
