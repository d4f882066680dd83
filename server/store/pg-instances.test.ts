import t, { type Test } from 'tap';
import { validatingFetch } from '../../contracts/testing/contract-client.js';
import { checkInvariants, completeVoids, runInterleaving, seeded, type RaceTarget } from '../../scripts/race/race.js';
import { PosClient, signPosRequest } from '../../terminal/pos-client.js';
import { ManualClock } from '../clock.js';
import { defaultConfig } from '../config.js';
import { PgStore } from './pg-store.js';
import { serveApp } from '../testing/test-server.js';
import { postgresSkip, startPostgres } from './pg-testing.js';

/** Two server instances, each with its own connection pool, on one database. */
async function twoInstances(t: Test) {
  const connectionString = startPostgres(t);
  const clock = new ManualClock(Date.now());
  const instances = [];
  for (let i = 0; i < 2; i += 1) {
    const store = await PgStore.open({ connectionString });
    const { baseUrl, api, stop } = await serveApp({ store, clock, config: { ...defaultConfig, scryptCost: 1024, logLevel: 'silent' } });
    t.teardown(stop);
    instances.push({ baseUrl, api });
  }
  const [a, b] = instances as [(typeof instances)[0], (typeof instances)[0]];
  const account = (await a.api.post('/console/register', { json: { email: 'two@example.com', password: '12345678' } })).body;
  const terminal = (await a.api.post(`/api/v1/merchants/${account.merchant_id}/pos-terminals`, { json: { serialNumber: 'TWO-1' }, token: account.key.token })).body;
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

t.test('the rate brake counts an account\'s requests across instances', { skip: postgresSkip() }, async (t) => {
  const { a, b, account } = await twoInstances(t);
  await a.api.put('/console/rate-limit', { json: { per_minute: 2 }, token: account.console_token });
  t.equal((await a.api.get('/control/clock', { token: account.key.token })).status, 200);
  t.equal((await b.api.get('/control/clock', { token: account.key.token })).status, 200);
  const third = await a.api.get('/control/clock', { token: account.key.token });
  t.equal(third.status, 429, 'the third request of the minute, whichever instance gets it');
  t.equal((await b.api.get('/control/clock', { token: account.key.token })).status, 429);
});

t.test('the discard/commit race split across two instances keeps every invariant', { skip: postgresSkip() }, async (t) => {
  const { a, b, clock, account, terminal } = await twoInstances(t);
  let signed = 0;
  // The merchant talks to instance A, the terminal to instance B.
  const target: RaceTarget = {
    baseUrl: a.baseUrl,
    merchantId: account.merchant_id,
    merchantToken: account.key.token,
    terminal: terminal.serialNumber,
    pos: new PosClient({ baseUrl: b.baseUrl, serialNumber: terminal.serialNumber, secret: terminal.secret, now: () => clock.now() + ++signed, fetch: validatingFetch() }),
  };
  const runs = [];
  for (const interleaving of ['simultaneous', 'merchant-delayed', 'lost-answer-retry'] as const) runs.push(...(await runInterleaving(target, interleaving, 15, seeded(11), 'two')));
  await completeVoids(target, runs);
  t.same(checkInvariants(runs), [], `${runs.length} orders, no invariant broken`);
});
