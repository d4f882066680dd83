import t from 'tap';
import { merchantWithTerminal, registerAccount, startTestServer } from '../testing/test-server.js';

const batch = (serial: string, overrides: Record<string, unknown> = {}) => ({
  batchNumber: 'B0001',
  transactionCount: 12,
  closedAt: '2026-11-21T09:30:00.000Z',
  currencyReference: 'USD',
  terminal: serial,
  debitBatch: 'DB-0001',
  ...overrides,
});

t.test('a settlement is registered, and the same batch again is an idempotent replay', async (t) => {
  const server = await startTestServer(t);
  const { pos, serialNumber, account } = await merchantWithTerminal(server);
  const first = await pos.notifySettlement(batch(serialNumber));
  t.equal(first.status, 200);
  t.match(first.body, { title: String, detail: 'settlement registered', data: batch(serialNumber) });
  const replay = await pos.notifySettlement(batch(serialNumber));
  t.equal(replay.status, 200);
  t.match(replay.body.detail, /already registered/);
  t.same(replay.body.data, batch(serialNumber));
  const list = await server.api.get(
    `/api/v1/merchants/${account.merchant_id}/pos-terminals/${serialNumber}/settlements`,
    { token: account.key.token },
  );
  t.equal(list.body.data.length, 1, 'a replay stores nothing twice');
});

t.test('the same batch number with other fields answers 409 SETTLEMENT_CONFLICT', async (t) => {
  const server = await startTestServer(t);
  const { pos, serialNumber } = await merchantWithTerminal(server);
  await pos.notifySettlement(batch(serialNumber));
  for (const change of [
    { transactionCount: 13 },
    { closedAt: '2026-11-21T09:30:00.001Z' },
    { currencyReference: 'EUR' },
    { debitBatch: 'DB-2' },
  ]) {
    const response = await pos.notifySettlement(batch(serialNumber, change));
    t.equal(response.status, 409, JSON.stringify(change));
    t.equal(response.body.code, 'SETTLEMENT_CONFLICT');
  }
});

t.test('each validation rule of the six fields answers 400 with its pointer', async (t) => {
  const server = await startTestServer(t);
  const { pos, serialNumber } = await merchantWithTerminal(server);
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['batchNumber empty', { batchNumber: '' }, '/batchNumber'],
    ['batchNumber over 32', { batchNumber: 'x'.repeat(33) }, '/batchNumber'],
    ['transactionCount negative', { transactionCount: -1 }, '/transactionCount'],
    ['transactionCount over 1,000,000', { transactionCount: 1_000_001 }, '/transactionCount'],
    ['transactionCount fractional', { transactionCount: 1.5 }, '/transactionCount'],
    ['closedAt without milliseconds', { closedAt: '2026-11-21T09:30:00Z' }, '/closedAt'],
    ['closedAt not UTC', { closedAt: '2026-11-21T09:30:00.000+01:00' }, '/closedAt'],
    ['currencyReference lowercase', { currencyReference: 'usd' }, '/currencyReference'],
    ['debitBatch empty', { debitBatch: '' }, '/debitBatch'],
    ['debitBatch over 64', { debitBatch: 'd'.repeat(65) }, '/debitBatch'],
    ["terminal not the path's", { terminal: 'POS-OTHER' }, '/terminal'],
    ['an unknown field', { note: 'hi' }, '/note'],
  ];
  for (const [name, change, pointer] of cases) {
    const response = await pos.notifySettlement(batch(serialNumber, change) as never);
    t.equal(response.status, 400, name);
    t.equal(response.body.code, 'VALIDATION_FAILED', name);
    t.ok(
      response.body.details!.some((d: { pointer: string }) => d.pointer === pointer),
      `${name}: ${pointer}`,
    );
  }
  for (const field of ['batchNumber', 'transactionCount', 'closedAt', 'currencyReference', 'terminal', 'debitBatch']) {
    const { [field]: _dropped, ...rest } = batch(serialNumber) as Record<string, unknown>;
    const response = await pos.notifySettlement(rest as never);
    t.equal(response.status, 400, `${field} missing`);
    t.same(
      response.body.details!.map((d: { pointer: string }) => d.pointer),
      [`/${field}`],
    );
  }
  const edge = await pos.notifySettlement(
    batch(serialNumber, { batchNumber: 'x'.repeat(32), transactionCount: 0, debitBatch: 'd'.repeat(64) }),
  );
  t.equal(edge.status, 200, 'the bounds themselves are allowed');
});

t.test('sorting works on every field both ways; the latest is sort=-closedAt&size=1', async (t) => {
  const server = await startTestServer(t);
  const { pos, serialNumber, account } = await merchantWithTerminal(server);
  const batches = [
    batch(serialNumber, {
      batchNumber: 'B2',
      transactionCount: 5,
      closedAt: '2026-11-20T10:00:00.000Z',
      currencyReference: 'EUR',
      debitBatch: 'D3',
    }),
    batch(serialNumber, {
      batchNumber: 'B3',
      transactionCount: 100,
      closedAt: '2026-11-22T10:00:00.000Z',
      currencyReference: 'ARS',
      debitBatch: 'D1',
    }),
    batch(serialNumber, {
      batchNumber: 'B1',
      transactionCount: 20,
      closedAt: '2026-11-21T10:00:00.000Z',
      currencyReference: 'USD',
      debitBatch: 'D2',
    }),
  ];
  for (const b of batches) await pos.notifySettlement(b);
  const path = `/api/v1/merchants/${account.merchant_id}/pos-terminals/${serialNumber}/settlements`;
  const sorted = async (sort: string) =>
    (await server.api.get(`${path}?sort=${sort}`, { token: account.key.token })).body.data.map(
      (s: { batchNumber: string }) => s.batchNumber,
    );
  const expectations: Record<string, string[]> = {
    batchNumber: ['B1', 'B2', 'B3'],
    transactionCount: ['B2', 'B1', 'B3'],
    closedAt: ['B2', 'B1', 'B3'],
    currencyReference: ['B3', 'B2', 'B1'],
    terminal: ['B1', 'B2', 'B3'],
    debitBatch: ['B3', 'B1', 'B2'],
  };
  for (const [field, ascending] of Object.entries(expectations)) {
    t.same(await sorted(field), ascending, `${field} ascending`);
    if (field !== 'terminal') t.same(await sorted(`-${field}`), [...ascending].reverse(), `${field} descending`);
  }
  t.same(await sorted('-terminal'), ['B3', 'B2', 'B1'], 'ties fall back to a stable order');
  const latest = await server.api.get(`${path}?sort=-closedAt&size=1`, { token: account.key.token });
  t.same(latest.body.data, [batches[1]]);
  const byDefault = await server.api.get(path, { token: account.key.token });
  t.same(
    byDefault.body.data.map((s: { batchNumber: string }) => s.batchNumber),
    ['B3', 'B1', 'B2'],
    'the default sort is -closedAt',
  );
  const bad = await server.api.get(`${path}?sort=amount`, { token: account.key.token });
  t.equal(bad.status, 400);
});

t.test('paging and from/to bounds (inclusive); out-of-range paging answers 400', async (t) => {
  const server = await startTestServer(t);
  const { pos, serialNumber, account } = await merchantWithTerminal(server);
  for (let day = 1; day <= 9; day += 1) {
    await pos.notifySettlement(
      batch(serialNumber, { batchNumber: `D${day}`, closedAt: `2026-11-0${day}T12:00:00.000Z` }),
    );
  }
  const path = `/api/v1/merchants/${account.merchant_id}/pos-terminals/${serialNumber}/settlements`;
  const names = async (query: string) =>
    (await server.api.get(`${path}?${query}`, { token: account.key.token })).body.data.map(
      (s: { batchNumber: string }) => s.batchNumber,
    );
  t.same(await names('sort=closedAt&size=4&page=2'), ['D5', 'D6', 'D7', 'D8']);
  t.same(await names('sort=closedAt&size=4&page=3'), ['D9']);
  t.same(await names('sort=closedAt&size=4&page=4'), []);
  t.same(
    await names('sort=closedAt&from=2026-11-03T12:00:00.000Z&to=2026-11-05T12:00:00.000Z'),
    ['D3', 'D4', 'D5'],
    'bounds are inclusive',
  );
  t.same(await names('sort=closedAt&from=2026-11-08T00:00:00Z'), ['D8', 'D9']);
  t.same(
    await names('sort=closedAt&to=2026-11-02T13:00:00%2B01:00'),
    ['D1', 'D2'],
    'any ISO 8601 offset is understood',
  );
  for (const query of ['size=0', 'size=101', 'page=0', 'page=-1', 'from=yesterday']) {
    const response = await server.api.get(`${path}?${query}`, { token: account.key.token });
    t.equal(response.status, 400, query);
  }
});

t.test("another merchant's terminal answers 404", async (t) => {
  const server = await startTestServer(t);
  const owner = await merchantWithTerminal(server);
  await owner.pos.notifySettlement(batch(owner.serialNumber));
  const stranger = await registerAccount(server.api);
  const asStranger = await server.api.get(
    `/api/v1/merchants/${stranger.merchant_id}/pos-terminals/${owner.serialNumber}/settlements`,
    { token: stranger.key.token },
  );
  t.equal(asStranger.status, 404);
  const viaOwnerPath = await server.api.get(
    `/api/v1/merchants/${owner.account.merchant_id}/pos-terminals/${owner.serialNumber}/settlements`,
    { token: stranger.key.token },
  );
  t.equal(viaOwnerPath.status, 404);
  const unknown = await server.api.get(
    `/api/v1/merchants/${owner.account.merchant_id}/pos-terminals/POS-NONE/settlements`,
    { token: owner.account.key.token },
  );
  t.equal(unknown.status, 404);
  // The owner's settlements answer whose terminal it is; a page without any, the terminal itself.
  const own = (query: string) =>
    server.api.get(
      `/api/v1/merchants/${owner.account.merchant_id}/pos-terminals/${owner.serialNumber}/settlements${query}`,
      { token: owner.account.key.token },
    );
  t.equal((await own('?sort=-closedAt&size=1')).body.data.length, 1);
  const pastTheEnd = await own('?page=2&size=1');
  t.equal(pastTheEnd.status, 200, "the owner's terminal, a page past its settlements: empty, not 404");
  t.same(pastTheEnd.body.data, []);
  const strangers = await merchantWithTerminal(server);
  const none = await server.api.get(`${strangers.merchantPath}/pos-terminals/${strangers.serialNumber}/settlements`, {
    token: strangers.account.key.token,
  });
  t.equal(none.status, 200, 'a terminal without settlements');
  t.same(none.body.data, []);
  const crossed = await server.api.get(`${strangers.merchantPath}/pos-terminals/${owner.serialNumber}/settlements`, {
    token: strangers.account.key.token,
  });
  t.equal(
    crossed.status,
    404,
    "another merchant's terminal with settlements, from a merchant that has terminals of its own",
  );
});
