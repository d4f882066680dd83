import t from 'tap';
import { createLogger } from '../log.js';
import { registerAccount, startTestServer } from '../testing/test-server.js';
import type { Account } from './account.js';

t.test('registration answers the account with its key, console token and absolute hook URLs', async (t) => {
  const { api, baseUrl, store } = await startTestServer(t);
  const response = await api.post('/console/register', {
    json: { email: 'Shop@Example.com', password: 'long enough', short_name: 'shop' },
  });
  t.equal(response.status, 201);
  const { account_id: id, hooks } = response.body;
  t.same(hooks, {
    paid: `${baseUrl}/console/hooks/${id}/paid`,
    accredited: `${baseUrl}/console/hooks/${id}/accredited`,
    fail: `${baseUrl}/console/hooks/${id}/fail`,
    captura: `${baseUrl}/console/hooks/${id}/captura`,
  });
  const stored = (await store.get<Account>('accounts', id))!;
  t.match(
    stored.password_hash,
    /^scrypt\$\d+\$8\$1\$[0-9a-f]{32}\$[0-9a-f]{64}$/,
    'the password is stored only as a scrypt hash',
  );
  t.notMatch(JSON.stringify(stored), /long enough/);
});

t.test('an email or short_name already registered answers 409, whatever its case', async (t) => {
  const { api } = await startTestServer(t);
  const first = await registerAccount(api, { short_name: 'taken' });
  const sameEmail = await api.post('/console/register', {
    json: { email: first.email.toUpperCase(), password: '12345678' },
  });
  t.equal(sameEmail.status, 409);
  t.equal(sameEmail.body.code, 'ACCOUNT_EXISTS');
  const sameShortName = await api.post('/register', {
    json: { email: 'other@example.com', password: '12345678', short_name: 'TAKEN' },
  });
  t.equal(sameShortName.status, 409);
});

t.test('the legacy /register answers the same without a console token', async (t) => {
  const { api } = await startTestServer(t);
  const response = await api.post('/register', { json: { email: 'legacy@example.com', password: '12345678' } });
  t.equal(response.status, 201);
  t.notOk('console_token' in response.body);
  t.match(response.body.key.token, /^sk_/);
  const login = await api.post('/api/svcpagos/login', { json: { email: 'legacy@example.com', password: '12345678' } });
  t.equal(login.status, 200, 'a legacy account gets its console token by logging in');
});

t.test(
  'login by email or short_name; a wrong password or unknown account answers 401 INVALID_CREDENTIALS',
  async (t) => {
    const { api } = await startTestServer(t);
    const account = await registerAccount(api, { short_name: 'kiosk' });
    const byEmail = await api.post('/api/svcpagos/login', {
      json: { email: account.email, password: account.password },
    });
    t.equal(byEmail.status, 200);
    t.match(byEmail.body, { token: /^lt_/, refreshToken: /^rt_/, expires_in: 3600, console_token: /^ct_/ });
    const byShortName = await api.post('/api/svcpagos/login', {
      json: { short_name: 'KIOSK', password: account.password },
    });
    t.equal(byShortName.status, 200);
    for (const json of [
      { email: account.email, password: 'wrong password' },
      { email: 'nobody@example.com', password: account.password },
      { short_name: 'nobody', password: account.password },
    ]) {
      const response = await api.post('/api/svcpagos/login', { json });
      t.equal(response.status, 401);
      t.equal(response.body.code, 'INVALID_CREDENTIALS');
    }
    const neither = await api.post('/api/svcpagos/login', { json: { password: 'x' } });
    t.equal(neither.status, 400, 'email or short_name is required');
  },
);

t.test('login rotates the console token: the previous one answers 401 INVALID_TOKEN', async (t) => {
  const { api } = await startTestServer(t);
  const account = await registerAccount(api);
  t.equal((await api.get('/console/keys', { token: account.console_token })).status, 200);
  const login = await api.post('/api/svcpagos/login', { json: { email: account.email, password: account.password } });
  const old = await api.get('/console/keys', { token: account.console_token });
  t.equal(old.status, 401);
  t.equal(old.body.code, 'INVALID_TOKEN');
  t.match(
    old.body.message,
    /^this console token was replaced by a login at \d{4}-\d\d-\d\dT[\d:.]+Z: use the console token that login answered/,
    'it says why, and when',
  );
  const fresh = await api.get('/console/keys', { token: login.body.console_token });
  t.equal(fresh.status, 200);
  t.same(
    fresh.body.keys.map((k: { token: string }) => k.token),
    [account.key.token],
  );
  // One replaced token is kept an account: two logins later, the first is simply unknown.
  const second = await api.post('/api/svcpagos/login', { json: { email: account.email, password: account.password } });
  await api.post('/api/svcpagos/login', { json: { email: account.email, password: account.password } });
  t.match((await api.get('/console/keys', { token: second.body.console_token })).body.message, /replaced by a login/);
  const first = await api.get('/console/keys', { token: login.body.console_token });
  t.equal(first.body.code, 'INVALID_TOKEN');
  t.notMatch(first.body.message, /replaced/, 'not kept forever');
});

t.test(
  'each token kind opens only its paths: the other kind answers WRONG_TOKEN_KIND, an unknown one INVALID_TOKEN',
  async (t) => {
    const { api } = await startTestServer(t);
    const account = await registerAccount(api);
    const login = (
      await api.post('/api/svcpagos/login', { json: { email: account.email, password: account.password } })
    ).body;

    for (const token of [account.key.token, login.token]) {
      t.equal((await api.get('/control/clock', { token })).status, 200);
      t.equal((await api.get('/__test__/clock', { token })).status, 200);
      const onConsole = await api.get('/console/keys', { token });
      t.equal(onConsole.status, 401);
      t.equal(onConsole.body.code, 'WRONG_TOKEN_KIND');
    }
    for (const token of [login.console_token, login.refreshToken]) {
      const onApi = await api.get('/control/clock', { token });
      t.equal(onApi.status, 401);
      t.equal(onApi.body.code, 'WRONG_TOKEN_KIND');
    }
    const unknown = await api.get('/control/clock', { token: `sk_${'0'.repeat(64)}` });
    t.equal(unknown.body.code, 'INVALID_TOKEN');
    const garbage = await api.get('/console/keys', { token: 'hello' });
    t.equal(garbage.body.code, 'INVALID_TOKEN');
    const none = await api.get('/control/clock');
    t.equal(none.status, 401);
    t.equal(none.body.code, 'INVALID_TOKEN');
    t.match(none.body.message, /Authorization: Bearer/);
  },
);

t.test('a login token expires after expires_in seconds on the account clock; the API token never does', async (t) => {
  const { api, clock } = await startTestServer(t);
  const account = await registerAccount(api);
  const login = (await api.post('/api/svcpagos/login', { json: { email: account.email, password: account.password } }))
    .body;
  clock.advance(3599_999);
  t.equal((await api.get('/control/clock', { token: login.token })).status, 200);
  clock.advance(1);
  const expired = await api.get('/control/clock', { token: login.token });
  t.equal(expired.status, 401);
  t.equal(expired.body.code, 'INVALID_TOKEN');
  t.match(expired.body.message, /expired/);

  const fresh = (await api.post('/api/svcpagos/login', { json: { email: account.email, password: account.password } }))
    .body;
  await api.post('/control/clock/advance', { json: { ms: 3600_000 }, token: account.key.token });
  t.equal(
    (await api.get('/control/clock', { token: fresh.token })).status,
    401,
    'advancing the account clock expires it too',
  );
  clock.advance(365 * 24 * 3600_000);
  t.equal(
    (await api.get('/control/clock', { token: account.key.token })).status,
    200,
    'the API token still works a year on',
  );
});

t.test(
  'refresh gives new tokens with x-svc-sim, keeps the console token and the old refresh token valid',
  async (t) => {
    const { api } = await startTestServer(t);
    const account = await registerAccount(api);
    const login = (
      await api.post('/api/svcpagos/login', { json: { email: account.email, password: account.password } })
    ).body;
    const first = await api.post('/api/svcpagos/refresh-token', { json: { refreshToken: login.refreshToken } });
    t.equal(first.status, 200);
    t.equal(first.headers.get('x-svc-sim'), 'fuera-de-contrato');
    t.equal(first.body.console_token, login.console_token, 'refresh does not rotate the console token');
    t.not(first.body.token, login.token);
    t.equal((await api.get('/control/clock', { token: first.body.token })).status, 200);
    const again = await api.post('/api/svcpagos/refresh-token', { json: { refreshToken: login.refreshToken } });
    t.equal(again.status, 200, 'the previous refresh token stays valid');
    t.equal((await api.get('/console/keys', { token: login.console_token })).status, 200);

    const withApiToken = await api.post('/api/svcpagos/refresh-token', { json: { refreshToken: account.key.token } });
    t.equal(withApiToken.status, 401);
    t.equal(withApiToken.body.code, 'WRONG_TOKEN_KIND');
    const unknown = await api.post('/api/svcpagos/refresh-token', { json: { refreshToken: `rt_${'1'.repeat(64)}` } });
    t.equal(unknown.body.code, 'INVALID_TOKEN');
  },
);

t.test('the account clock moves per account, and only forward', async (t) => {
  const { api, clock } = await startTestServer(t);
  const a = await registerAccount(api);
  const b = await registerAccount(api);
  const moved = await api.post('/__test__/clock/advance', { json: { ms: 90_000 }, token: a.key.token });
  t.same(moved.body, { now: new Date(clock.now() + 90_000).toISOString(), offset_ms: 90_000 });
  t.same((await api.get('/control/clock', { token: b.key.token })).body, {
    now: new Date(clock.now()).toISOString(),
    offset_ms: 0,
  });
  const backwards = await api.post('/control/clock/advance', { json: { ms: -5 }, token: a.key.token });
  t.equal(backwards.status, 400);
});

t.test('tokens, secrets and passwords never reach the log', async (t) => {
  const lines: string[] = [];
  const log = createLogger('debug', (line) => lines.push(line));
  const { api } = await startTestServer(t, {}, log);
  const account = await registerAccount(api);
  const login = (await api.post('/api/svcpagos/login', { json: { email: account.email, password: account.password } }))
    .body;
  await api.get('/control/clock', { token: login.token });
  await api.get('/console/keys', { token: account.key.token });
  await api.post('/api/svcpagos/login', { json: { email: account.email, password: 'a wrong password' } });
  const logged = lines.join('');
  t.ok(lines.length >= 5, 'requests were logged');
  for (const secret of [
    account.key.token,
    account.key.webhook_secret,
    account.console_token,
    login.token,
    login.refreshToken,
    login.console_token,
    account.password,
    'a wrong password',
  ]) {
    t.notOk(logged.includes(secret), 'a secret is absent from the log');
  }
});
