import t, { type Test } from 'tap';
import { contractClient } from '../../contracts/testing/contract-client.js';
import { signPosRequest } from '../../contracts/clients/pos-client.js';
import { postgresSkip, startPostgres } from '../store/postgres/pg-testing.js';
import { startServerProcess, stopServerProcess, type ServerProcess } from '../testing/server-process.js';

// A signed POS request accepted before the server died, whatever its
// timestamp within the 300 s tolerance (a terminal whose clock runs slow or
// fast), is refused as a replay after the restart; and a request signed
// right after it, by a terminal whose clock runs 200 s slow or fast, is
// accepted at once, a settlement as a read: the real server, kill -9 and a
// clean stop (SIGTERM), on both stores.

const SKEW_S = [-200, 0, 120, 200];

async function replayAcrossRestart(t: Test, ending: 'SIGKILL' | 'SIGTERM', env: Record<string, string>) {
  let server: ServerProcess = await startServerProcess(env);
  t.teardown(() => stopServerProcess(server));
  const api = contractClient(server.baseUrl);
  const account = (
    await api.post('/console/register', {
      json: { email: `replay-${ending}-${Date.now()}@example.com`, password: '12345678' },
    })
  ).body;
  const serial = `RPL-${ending}-${Date.now()}`;
  const terminal = (
    await api.post(`/api/v1/merchants/${account.merchant_id}/pos-terminals`, {
      json: { serialNumber: serial },
      token: account.key.token,
    })
  ).body;
  const url = `/api/v1/pos-terminals/${serial}/transactions`;
  const captured = SKEW_S.map((skewS) =>
    signPosRequest({ secret: terminal.secret, method: 'GET', url, now: Date.now() + skewS * 1000 }),
  );
  for (const [i, headers] of captured.entries()) {
    t.equal(
      (await api.request('GET', url, { headers })).status,
      200,
      `signed ${SKEW_S[i]} s off: accepted before the ${ending}`,
    );
  }
  const settle = `/api/v1/pos-terminals/${serial}/settlements`;
  const batch = (n: number) =>
    JSON.stringify({
      batchNumber: `B${n}`,
      transactionCount: 1,
      closedAt: new Date().toISOString(),
      currencyReference: 'USD',
      terminal: serial,
      debitBatch: `D${n}`,
    });
  const post = (
    client: typeof api,
    body: string,
    skewS: number,
    headers = signPosRequest({
      secret: terminal.secret,
      method: 'POST',
      url: settle,
      body,
      now: Date.now() + skewS * 1000,
    }),
  ) =>
    client
      .request('POST', settle, { raw: body, headers: { 'content-type': 'application/json', ...headers } })
      .then((answer) => ({ answer, headers, body }));
  const settledBefore = await post(api, batch(1), -200);
  t.equal(settledBefore.answer.status, 200, `a settlement signed 200 s slow: accepted before the ${ending}`);
  server.child.kill(ending);
  await stopServerProcess(server);
  server = await startServerProcess(env);
  const again = contractClient(server.baseUrl);
  for (const [i, headers] of captured.entries()) {
    const replay = await again.request('GET', url, { headers });
    t.equal(replay.status, 401, `signed ${SKEW_S[i]} s off: refused after the ${ending}`);
    t.equal(replay.body.code, 'SIGNATURE_REPLAYED');
  }
  const replayedSettlement = await post(again, settledBefore.body, -200, settledBefore.headers);
  t.equal(
    replayedSettlement.answer.body.code,
    'SIGNATURE_REPLAYED',
    `the settlement accepted before the ${ending}: refused after it`,
  );
  // Terminals whose clocks run 200 s slow or fast, signing right after the restart: none is locked out.
  for (const skewS of SKEW_S) {
    const fresh = await again.request('GET', url, {
      headers: signPosRequest({ secret: terminal.secret, method: 'GET', url, now: Date.now() + skewS * 1000 + 1 }),
    });
    t.equal(fresh.status, 200, `a GET signed ${skewS} s off right after the ${ending}: accepted`);
  }
  t.equal(
    (await post(again, batch(2), -200)).answer.status,
    200,
    `a settlement signed 200 s slow right after the ${ending}: accepted`,
  );
  t.equal(
    (await post(again, batch(3), 200)).answer.status,
    200,
    `a settlement signed 200 s fast right after the ${ending}: accepted`,
  );
}

for (const ending of ['SIGKILL', 'SIGTERM'] as const) {
  t.test(`embedded store, ${ending}: replays refused`, async (t) =>
    replayAcrossRestart(t, ending, { DATA_DIR: t.testdir() }),
  );
  t.test(`PostgreSQL, ${ending}: replays refused`, { skip: postgresSkip() }, async (t) => {
    const DATABASE_URL = startPostgres(t);
    await replayAcrossRestart(t, ending, { DATA_DIR: t.testdir(), DATABASE_URL });
  });
}
