import t from 'tap';
import { PosClient } from '../../contracts/clients/pos-client.js';
import { validatingFetch } from '../../contracts/testing/contract-client.js';
import { createLogger } from '../log.js';
import { merchantWithTerminal, registerAccount, signingClock, startTestServer } from '../testing/test-server.js';

t.test('provisioning answers the secret once; the list never shows it', async (t) => {
  const server = await startTestServer(t);
  const account = await registerAccount(server.api);
  const path = `/api/v1/merchants/${account.merchant_id}/pos-terminals`;
  const created = await server.api.post(path, {
    json: { serialNumber: 'POS-A', label: 'front desk' },
    token: account.key.token,
  });
  t.equal(created.status, 201);
  t.match(created.body, { serialNumber: 'POS-A', secret: /^[0-9a-f]{64}$/, createdAt: String });
  await server.api.post(path, { json: { serialNumber: 'POS-B' }, token: account.key.token });
  const list = await server.api.get(path, { token: account.key.token });
  t.same(
    list.body.data.map((terminal: { serialNumber: string }) => terminal.serialNumber),
    ['POS-A', 'POS-B'],
  );
  t.notOk(list.text.includes(created.body.secret), 'the secret is not listed');
  t.equal(list.body.data[0].label, 'front desk');
});

t.test('a serial number is unique across the service: 409 even for another merchant', async (t) => {
  const server = await startTestServer(t);
  const first = await merchantWithTerminal(server, 'POS-UNIQUE');
  const other = await registerAccount(server.api);
  const taken = await server.api.post(`/api/v1/merchants/${other.merchant_id}/pos-terminals`, {
    json: { serialNumber: 'POS-UNIQUE' },
    token: other.key.token,
  });
  t.equal(taken.status, 409);
  t.equal(taken.body.code, 'ALREADY_EXISTS');
  void first;
});

t.test("another merchant's id or terminal answers 404, never 403", async (t) => {
  const server = await startTestServer(t);
  const owner = await merchantWithTerminal(server);
  const other = await registerAccount(server.api);
  const foreignPath = `/api/v1/merchants/${owner.account.merchant_id}/pos-terminals`;
  t.equal((await server.api.get(foreignPath, { token: other.key.token })).status, 404);
  t.equal((await server.api.post(foreignPath, { json: { serialNumber: 'X1' }, token: other.key.token })).status, 404);
  const rotateForeign = await server.api.post(
    `/api/v1/merchants/${other.merchant_id}/pos-terminals/${owner.serialNumber}/secret`,
    { token: other.key.token },
  );
  t.equal(rotateForeign.status, 404);
  t.equal(
    (await server.api.get('/api/v1/merchants/mer_nobody/pos-terminals', { token: other.key.token })).body.code,
    'NOT_FOUND',
  );
});

t.test('rotating the secret answers a new one; the old one stops signing at once', async (t) => {
  const server = await startTestServer(t);
  const { account, serialNumber, pos, secret } = await merchantWithTerminal(server);
  t.equal((await pos.listOrders()).status, 200);
  const rotated = await server.api.post(
    `/api/v1/merchants/${account.merchant_id}/pos-terminals/${serialNumber}/secret`,
    { token: account.key.token },
  );
  t.equal(rotated.status, 201);
  t.not(rotated.body.secret, secret);
  const stale = await pos.listOrders();
  t.equal(stale.status, 401);
  t.equal(stale.body.code, 'SIGNATURE_INVALID');
  const fresh = new PosClient({
    baseUrl: server.baseUrl,
    serialNumber,
    secret: rotated.body.secret,
    now: signingClock(server),
    fetch: validatingFetch(),
  });
  t.equal((await fresh.listOrders()).status, 200);
  const list = await server.api.get(`/api/v1/merchants/${account.merchant_id}/pos-terminals`, {
    token: account.key.token,
  });
  t.equal(list.body.data[0].secretRotatedAt, new Date(server.clock.now()).toISOString());
});

t.test('invalid provisioning input answers 400 with pointers', async (t) => {
  const server = await startTestServer(t);
  const account = await registerAccount(server.api);
  const path = `/api/v1/merchants/${account.merchant_id}/pos-terminals`;
  const bad = await server.api.post(path, { json: { serialNumber: 'has spaces', extra: 1 }, token: account.key.token });
  t.equal(bad.status, 400);
  t.same(bad.body.details.map((d: { pointer: string }) => d.pointer).sort(), ['/extra', '/serialNumber']);
});

t.test('terminal secrets never reach the log', async (t) => {
  const lines: string[] = [];
  const server = await startTestServer(
    t,
    {},
    createLogger('debug', (line) => lines.push(line)),
  );
  const { pos, secret, createOrder } = await merchantWithTerminal(server);
  const order = await createOrder();
  await pos.commitPayment(order.orderId, {
    authorizationCode: 'A1',
    paidAt: new Date(server.clock.now()).toISOString(),
  });
  t.notOk(lines.join('').includes(secret));
});
