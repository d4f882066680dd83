import t, { type Test } from 'tap';
import { contractClient } from '../../contracts/testing/contract-client.js';
import { signPosRequest } from '../../contracts/clients/pos-client.js';
import { postgresSkip, startPostgres } from '../store/pg-testing.js';
import { startServerProcess, stopServerProcess, type ServerProcess } from '../testing/server-process.js';

// A signed POS request accepted before the server died, whatever its
// timestamp within the 300 s tolerance (a terminal whose clock runs fast),
// is refused as a replay after the restart: the real server, kill -9 and a
// clean stop (SIGTERM), on both stores.

const AHEAD_S = [0, 120, 240];

async function replayAcrossRestart(t: Test, ending: 'SIGKILL' | 'SIGTERM', env: Record<string, string>) {
  let server: ServerProcess = await startServerProcess(env);
  t.teardown(() => stopServerProcess(server));
  const api = contractClient(server.baseUrl);
  const account = (await api.post('/console/register', { json: { email: `replay-${ending}-${Date.now()}@example.com`, password: '12345678' } })).body;
  const serial = `RPL-${ending}-${Date.now()}`;
  const terminal = (await api.post(`/api/v1/merchants/${account.merchant_id}/pos-terminals`, { json: { serialNumber: serial }, token: account.key.token })).body;
  const url = `/api/v1/pos-terminals/${serial}/transactions`;
  const captured = AHEAD_S.map((aheadS) => signPosRequest({ secret: terminal.secret, method: 'GET', url, now: Date.now() + aheadS * 1000 }));
  for (const [i, headers] of captured.entries()) {
    t.equal((await api.request('GET', url, { headers })).status, 200, `signed ${AHEAD_S[i]} s ahead: accepted before the ${ending}`);
  }
  server.child.kill(ending);
  await stopServerProcess(server);
  server = await startServerProcess(env);
  const again = contractClient(server.baseUrl);
  for (const [i, headers] of captured.entries()) {
    const replay = await again.request('GET', url, { headers });
    t.equal(replay.status, 401, `signed ${AHEAD_S[i]} s ahead: refused after the ${ending}`);
    t.equal(replay.body.code, 'SIGNATURE_REPLAYED');
  }
  // Dated past the second of grace after a crash start, rather than waiting for it: a real process runs on real time.
  const fresh = await again.request('GET', url, { headers: signPosRequest({ secret: terminal.secret, method: 'GET', url, now: Date.now() + 2_000 }) });
  t.equal(fresh.status, 200, 'signed anew, the request passes');
}

for (const ending of ['SIGKILL', 'SIGTERM'] as const) {
  t.test(`embedded store, ${ending}: replays refused`, async (t) => replayAcrossRestart(t, ending, { DATA_DIR: t.testdir() }));
  t.test(`PostgreSQL, ${ending}: replays refused`, { skip: postgresSkip() }, async (t) => {
    const DATABASE_URL = startPostgres(t);
    await replayAcrossRestart(t, ending, { DATA_DIR: t.testdir(), DATABASE_URL });
  });
}
