import t from 'tap';
import { computePosSignature, posSignatureBytes } from '../../contracts/pos-signature.js';
import { signPosRequest } from '../../contracts/clients/pos-client.js';
import { ManualClock } from '../clock.js';
import { bootOnDirectory, merchantWithTerminal, startTestServer, type TestServer } from '../testing/test-server.js';

// INTERFACE.md §2: every way a POS signature can be wrong, through real HTTP.

async function setup(t: Parameters<typeof startTestServer>[0]) {
  const server = await startTestServer(t);
  const merchant = await merchantWithTerminal(server);
  const order = await merchant.createOrder();
  const commitUrl = `/api/v1/pos-terminals/${merchant.serialNumber}/transactions/${order.orderId}/commit`;
  const body = JSON.stringify({ authorizationCode: 'A1', paidAt: new Date(server.clock.now()).toISOString() });
  return { server, ...merchant, order, commitUrl, body };
}

/** Sends with the headers given, through the contract-checking client. */
function send(server: TestServer, method: string, url: string, headers: Record<string, string>, body?: string) {
  return server.api.request(method, url, {
    ...(body !== undefined ? { raw: body } : {}),
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
  });
}

// Vectors computed independently: printf '%s' "$ts.$url.$body" | openssl dgst -sha256 -hmac "$secret".
t.test('the signature matches independently computed vectors, with a body and a query, and bodyless', async (t) => {
  const secret = 'ab'.repeat(32);
  const timestamp = '2026-11-21T10:00:00.000Z';
  const withBody = '84d020fe7256d60efe8f86b2b85cfe8dad82a4a1ae514832c7d46b64108f7ec5';
  t.equal(
    computePosSignature(secret, timestamp, '/api/v1/pos-terminals/SN-1/settlements?x=1', '{"batchNumber":"B-1"}'),
    withBody,
  );
  t.equal(
    computePosSignature(
      secret,
      timestamp,
      '/api/v1/pos-terminals/SN-1/settlements?x=1',
      Buffer.from('{"batchNumber":"B-1"}'),
    ),
    withBody,
    'the body as bytes',
  );
  t.equal(
    posSignatureBytes(
      secret,
      timestamp,
      '/api/v1/pos-terminals/SN-1/settlements?x=1',
      '{"batchNumber":"B-1"}',
    ).toString('hex'),
    withBody,
  );
  t.equal(
    computePosSignature(secret, timestamp, '/api/v1/pos-terminals/SN-1/orders', ''),
    '09d4faf9305d2891953bbcf8a8196d10e83f273b68ac4d292ccd4054c7f3dde8',
  );
  const accented = '74e7c2cb057294d02b2caff52a707a6361bb1d977eaa27c95a3e30f641108377';
  t.equal(
    computePosSignature(secret, timestamp, '/api/v1/pos-terminals/SN-1/orders', '{"description":"ñandú"}'),
    accented,
    'text is signed as its UTF-8 bytes',
  );
  t.equal(
    computePosSignature(secret, timestamp, '/api/v1/pos-terminals/SN-1/orders', Buffer.from('{"description":"ñandú"}')),
    accented,
  );
});

t.test('a correctly signed request passes', async (t) => {
  const { server, secret, commitUrl, body } = await setup(t);
  const response = await send(
    server,
    'POST',
    commitUrl,
    signPosRequest({ secret, method: 'POST', url: commitUrl, body, now: server.clock.now() }),
    body,
  );
  t.equal(response.status, 200);
  t.equal(response.body.data.status, 'PAID');
});

t.test('a tampered body, path or query answers SIGNATURE_INVALID', async (t) => {
  const { server, secret, commitUrl, body, serialNumber } = await setup(t);
  const headers = signPosRequest({ secret, method: 'POST', url: commitUrl, body, now: server.clock.now() });
  const tamperedBody = body.replace('A1', 'A2');
  const bodyTampered = await send(server, 'POST', commitUrl, headers, tamperedBody);
  t.equal(bodyTampered.body.code, 'SIGNATURE_INVALID');

  const listUrl = `/api/v1/pos-terminals/${serialNumber}/transactions?status=PENDING`;
  const listHeaders = signPosRequest({ secret, method: 'GET', url: listUrl, now: server.clock.now() });
  const queryTampered = await send(server, 'GET', listUrl.replace('PENDING', 'PAID'), listHeaders);
  t.equal(queryTampered.status, 401);
  t.equal(queryTampered.body.code, 'SIGNATURE_INVALID');
  const pathTampered = await send(
    server,
    'GET',
    `/api/v1/pos-terminals/${serialNumber}/transactions?status=PENDING&size=5`,
    listHeaders,
  );
  t.equal(pathTampered.body.code, 'SIGNATURE_INVALID');
  const untouched = await send(server, 'GET', listUrl, listHeaders);
  t.equal(untouched.status, 200, 'the same headers on the URL they sign pass');
});

t.test('timestamps 299 s off either way pass; 301 s off answer SIGNATURE_STALE', async (t) => {
  const { server, secret, serialNumber } = await setup(t);
  const url = `/api/v1/pos-terminals/${serialNumber}/transactions`;
  for (const [offsetS, expected] of [
    [-299, 200],
    [299, 200],
    [-301, 'SIGNATURE_STALE'],
    [301, 'SIGNATURE_STALE'],
  ] as const) {
    const response = await send(
      server,
      'GET',
      url,
      signPosRequest({ secret, method: 'GET', url, now: server.clock.now() + offsetS * 1000 }),
    );
    if (expected === 200) t.equal(response.status, 200, `${offsetS} s`);
    else t.equal(response.body.code, expected, `${offsetS} s`);
  }
});

t.test('an exact replay answers SIGNATURE_REPLAYED, and stale once the window has passed', async (t) => {
  const { server, secret, commitUrl, body } = await setup(t);
  const headers = signPosRequest({ secret, method: 'POST', url: commitUrl, body, now: server.clock.now() });
  t.equal((await send(server, 'POST', commitUrl, headers, body)).status, 200);
  const replay = await send(server, 'POST', commitUrl, headers, body);
  t.equal(replay.status, 401);
  t.equal(replay.body.code, 'SIGNATURE_REPLAYED');
  server.clock.advance(301_000);
  t.equal((await send(server, 'POST', commitUrl, headers, body)).body.code, 'SIGNATURE_STALE');
  const resigned = await send(
    server,
    'POST',
    commitUrl,
    signPosRequest({ secret, method: 'POST', url: commitUrl, body, now: server.clock.now() }),
    body,
  );
  t.equal(resigned.status, 200, 'the same request signed anew passes (an unchanged repeat)');
});

t.test('an unknown terminal answers SIGNATURE_INVALID like a wrong signature', async (t) => {
  const { server, secret } = await setup(t);
  const url = '/api/v1/pos-terminals/POS-NOBODY/transactions';
  const response = await send(
    server,
    'GET',
    url,
    signPosRequest({ secret, method: 'GET', url, now: server.clock.now() }),
  );
  t.equal(response.status, 401);
  t.equal(response.body.code, 'SIGNATURE_INVALID');
  t.notMatch(response.body.message, /terminal|unknown|exist/i, 'no hint that the serial does not exist');
});

t.test('missing or malformed headers answer SIGNATURE_INVALID', async (t) => {
  const { server, secret, serialNumber } = await setup(t);
  const url = `/api/v1/pos-terminals/${serialNumber}/transactions`;
  const good = signPosRequest({ secret, method: 'GET', url, now: server.clock.now() });
  const cases: Array<[string, Record<string, string>]> = [
    ['no headers', {}],
    ['no timestamp', { 'x-pos-signature': good['x-pos-signature'] }],
    ['no signature', { 'x-pos-timestamp': good['x-pos-timestamp'] }],
    ['not a time', { ...good, 'x-pos-timestamp': 'yesterday' }],
    ['uppercase hex', { ...good, 'x-pos-signature': good['x-pos-signature'].toUpperCase() }],
    ['short signature', { ...good, 'x-pos-signature': 'abc' }],
  ];
  const reasons: Record<string, string> = {
    'no headers': 'send x-pos-timestamp and x-pos-signature',
    'no timestamp': 'send x-pos-timestamp and x-pos-signature',
    'no signature': 'send x-pos-timestamp and x-pos-signature',
    'not a time': 'x-pos-timestamp must be an ISO 8601 time',
    'uppercase hex': 'x-pos-signature must be 64 lowercase hex characters',
    'short signature': 'x-pos-signature must be 64 lowercase hex characters',
  };
  for (const [name, headers] of cases) {
    const response = await send(server, 'GET', url, headers);
    t.equal(response.status, 401, name);
    t.equal(response.body.code, 'SIGNATURE_INVALID', name);
    t.equal(response.body.message, reasons[name], `${name}: the reason says what to fix`);
  }
});

t.test(
  'an ISO 8601 timestamp is taken with or without fractions, in UTC or with an offset; a malformed offset is refused',
  async (t) => {
    const { server, secret, serialNumber } = await setup(t);
    const url = `/api/v1/pos-terminals/${serialNumber}/transactions`;
    const now = server.clock.now();
    const sign = (timestamp: string) => ({
      'x-pos-timestamp': timestamp,
      'x-pos-signature': computePosSignature(secret, timestamp, url, ''),
    });
    const utc = new Date(Math.floor(now / 1000) * 1000).toISOString().replace('.000Z', 'Z');
    const shifted = new Date(Math.floor(now / 1000) * 1000 + 3 * 3_600_000).toISOString().replace('.000Z', '+03:00');
    for (const timestamp of [utc, shifted]) {
      t.equal((await send(server, 'GET', url, sign(timestamp))).status, 200, timestamp);
    }
    for (const timestamp of [
      shifted.replace('+03:00', '+03:0'),
      shifted.replace('+03:00', '+03:0x'),
      shifted.replace('+03:00', '+0300'),
    ]) {
      const response = await send(server, 'GET', url, sign(timestamp));
      t.equal(response.body.message, 'x-pos-timestamp must be an ISO 8601 time', timestamp);
    }
  },
);

t.test('each refusal after the headers names its reason', async (t) => {
  const { server, secret, serialNumber, commitUrl, body } = await setup(t);
  const url = `/api/v1/pos-terminals/${serialNumber}/transactions`;
  const wrong = await send(
    server,
    'GET',
    url,
    signPosRequest({ secret: 'ff'.repeat(32), method: 'GET', url, now: server.clock.now() }),
  );
  t.equal(wrong.body.message, 'the signature does not match');
  const stale = await send(
    server,
    'GET',
    url,
    signPosRequest({ secret, method: 'GET', url, now: server.clock.now() - 301_000 }),
  );
  t.equal(stale.body.message, 'x-pos-timestamp is more than 300 s from the server clock');
  const headers = signPosRequest({ secret, method: 'POST', url: commitUrl, body, now: server.clock.now() });
  await send(server, 'POST', commitUrl, headers, body);
  const replayed = await send(server, 'POST', commitUrl, headers, body);
  t.equal(replayed.body.message, 'this signature was already accepted; sign each request anew');
});

t.test('exactly 300 s off either way still passes: the tolerance is inclusive', async (t) => {
  const { server, secret, serialNumber } = await setup(t);
  const url = `/api/v1/pos-terminals/${serialNumber}/transactions`;
  for (const offset of [-300_000, 300_000]) {
    const response = await send(
      server,
      'GET',
      url,
      signPosRequest({ secret, method: 'GET', url, now: server.clock.now() + offset }),
    );
    t.equal(response.status, 200, `${offset / 1000} s`);
  }
});

t.test('a bodyless request signs the empty string', async (t) => {
  const { server, secret, serialNumber, account, merchantPath, order, commitUrl, body } = await setup(t);
  await send(
    server,
    'POST',
    commitUrl,
    signPosRequest({ secret, method: 'POST', url: commitUrl, body, now: server.clock.now() }),
    body,
  );
  await server.api.post(`${merchantPath}/transactions/${order.orderId}/invalidation`, { token: account.key.token });
  const voidUrl = `/api/v1/pos-terminals/${serialNumber}/transactions/${order.orderId}/invalidation/commit`;
  const response = await send(
    server,
    'POST',
    voidUrl,
    signPosRequest({ secret, method: 'POST', url: voidUrl, now: server.clock.now() }),
  );
  t.equal(response.status, 200);
  t.equal(response.body.data.status, 'VOIDED');
});

t.test("a terminal cannot use its signature on another terminal's path", async (t) => {
  const { server, secret } = await setup(t);
  const other = await merchantWithTerminal(server);
  const url = `/api/v1/pos-terminals/${other.serialNumber}/transactions`;
  const response = await send(
    server,
    'GET',
    url,
    signPosRequest({ secret, method: 'GET', url, now: server.clock.now() }),
  );
  t.equal(response.body.code, 'SIGNATURE_INVALID');
});

t.test(
  'a signed request captured before a restart is refused after it, whether the server crashed or stopped cleanly, wherever its timestamp lies in the window',
  async (t) => {
    const clock = new ManualClock();
    const base = t.testdir();
    for (const ending of ['crash', 'clean stop'] as const) {
      for (const skewS of [-299, -200, 0, 120, 200, 299]) {
        const dir = `${base}/${ending.replace(' ', '-')}-${skewS}`;
        const first = await bootOnDirectory(dir, clock);
        const merchant = await merchantWithTerminal({ ...first, clock } as unknown as TestServer);
        const url = `/api/v1/pos-terminals/${merchant.serialNumber}/transactions`;
        // Dated off the server's clock, as a terminal whose clock runs slow or fast signs (up to 300 s is allowed).
        const captured = signPosRequest({
          secret: merchant.secret,
          method: 'GET',
          url,
          now: clock.now() + skewS * 1000,
        });
        const label = `${ending}, signed ${skewS} s off`;
        t.equal((await first.api.request('GET', url, { headers: captured })).status, 200, `${label}: accepted before`);
        if (ending === 'crash') await first.store.close(); // nothing more is written: as a kill -9 leaves the data
        await first.stop();

        const second = await bootOnDirectory(dir, clock);
        t.teardown(second.stop);
        const replayed = await second.api.request('GET', url, { headers: captured });
        t.equal(replayed.status, 401, `${label}: refused after the restart`);
        t.equal(replayed.body.code, 'SIGNATURE_REPLAYED');
        t.match(replayed.body.message, /already accepted/, `${label}: the reason`);
        // The same terminal, its clock as skewed, signs anew at once: accepted, however far its signature is dated before the start.
        const fresh = await second.api.request('GET', url, {
          headers: signPosRequest({ secret: merchant.secret, method: 'GET', url, now: clock.now() + skewS * 1000 + 1 }),
        });
        t.equal(fresh.status, 200, `${label}: a request signed anew right after the restart passes`);
      }
    }
  },
);

t.test(
  "after a crash, no signature that was never accepted is refused, whatever the terminal's clock; every accepted one is in the store with its request",
  async (t) => {
    const clock = new ManualClock();
    const dir = t.testdir();
    const first = await bootOnDirectory(dir, clock);
    const merchant = await merchantWithTerminal({ ...first, clock } as unknown as TestServer);
    const url = `/api/v1/pos-terminals/${merchant.serialNumber}/transactions`;
    const settle = `/api/v1/pos-terminals/${merchant.serialNumber}/settlements`;
    const sign = (method: string, target: string, offsetMs: number, body?: string) =>
      signPosRequest({
        secret: merchant.secret,
        method,
        url: target,
        now: clock.now() + offsetMs,
        ...(body ? { body } : {}),
      });
    const batch = (n: number) =>
      JSON.stringify({
        batchNumber: `B${n}`,
        transactionCount: 1,
        closedAt: new Date(clock.now()).toISOString(),
        currencyReference: 'USD',
        terminal: merchant.serialNumber,
        debitBatch: `D${n}`,
      });
    const before = [sign('GET', url, -200_000), sign('GET', url, 200_000)];
    for (const headers of before) t.equal((await first.api.request('GET', url, { headers })).status, 200);
    const postedBefore = { headers: sign('POST', settle, -200_000, batch(1)), body: batch(1) };
    t.equal(
      (await send(first as unknown as TestServer, 'POST', settle, postedBefore.headers, postedBefore.body)).status,
      200,
      'a settlement signed 200 s slow, accepted',
    );
    t.equal(
      (await first.store.list('pos_signatures')).length,
      2,
      "each accepted GET's signature is a record; the settlement's is kept with the row it wrote",
    );
    await first.store.close();
    await first.stop();
    const second = await bootOnDirectory(dir, clock);
    t.teardown(second.stop);
    for (const skewMs of [-200_000, -1, 0, 1, 200_000]) {
      t.equal(
        (await second.api.request('GET', url, { headers: sign('GET', url, skewMs + 7) })).status,
        200,
        `a GET signed ${skewMs} ms off, right after the crash: accepted`,
      );
    }
    t.equal(
      (
        await send(
          second as unknown as TestServer,
          'POST',
          settle,
          sign('POST', settle, -200_000 + 9, batch(2)),
          batch(2),
        )
      ).status,
      200,
      'a settlement signed 200 s slow, right after the crash: accepted',
    );
    for (const headers of before)
      t.equal(
        (await second.api.request('GET', url, { headers })).body.code,
        'SIGNATURE_REPLAYED',
        'a GET accepted before the crash: refused',
      );
    t.equal(
      (await send(second as unknown as TestServer, 'POST', settle, postedBefore.headers, postedBefore.body)).body.code,
      'SIGNATURE_REPLAYED',
      'the settlement accepted before the crash: refused',
    );
  },
);
