import t from 'tap';
import { WebSocket } from 'ws';
import { startExampleReceiver } from '../../scripts/example-receiver.js';
import { startRelayClient } from '../../contracts/clients/relay-client.js';
import { startTestServer } from '../testing/test-server.js';
import { traceOf, webhookSetup } from '../webhooks/webhooks-testkit.js';

const wsUrl = (baseUrl: string) => `${baseUrl.replace('http', 'ws')}/relay`;

function upgradeStatus(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c)).on('end', () => resolve({ status: res.statusCode!, body }));
    });
    ws.on('open', () => {
      ws.close();
      resolve({ status: 101, body: '' });
    });
    ws.on('error', (e) => (e.message.includes('Unexpected server response') ? undefined : reject(e)));
  });
}

t.test('a local receiver behind the relay client gets every delivery, exact and verifiable', async (t) => {
  const server = await startTestServer(t);
  const { sessionTo, force, account, secret } = await webhookSetup(server);
  const events: string[] = [];
  const receiver = await startExampleReceiver({
    secret,
    now: () => server.clock.now(),
    onEvent: (event) => events.push(event.event),
  });
  t.teardown(() => receiver.server.close());
  const lines: string[] = [];
  const client = startRelayClient({
    baseUrl: server.baseUrl,
    token: account.key.token,
    forwardTo: receiver.url,
    log: (line) => lines.push(line),
  });
  t.teardown(() => client.stop());
  await client.connected;

  const session = await sessionTo('http://localhost:4000/my-webhooks');
  await force(session.session_id, 1, 'paid');
  await force(session.session_id, 2, 'accredited');
  await server.app.jobs.dispatcher.runDue();
  await new Promise((resolve) => setImmediate(resolve));
  t.same(
    events,
    ['payment_session.created', 'payment_session.paid', 'payment_session.accredited'],
    'in order, each verified by the receiver',
  );
  t.equal(receiver.rejected, 0, 'no signature failed');
  const attempts = await traceOf(server, account.account_id, 'webhook.attempt');
  t.same(
    attempts.map((a) => [a.routing, a.status]),
    [
      ['relay', 200],
      ['relay', 200],
      ['relay', 200],
    ],
  );
  t.equal(lines.filter((line) => line.includes('→ POST')).length, 3, 'one line per delivery');
  t.equal((await traceOf(server, account.account_id, 'relay.connected')).length, 1);
});

t.test('with no relay connected the attempt fails with the reason and the ladder goes on', async (t) => {
  const server = await startTestServer(t);
  const { sessionTo, account } = await webhookSetup(server);
  await sessionTo('http://192.168.1.20/hook');
  t.match(await traceOf(server, account.account_id, 'webhook.attempt'), [
    { routing: 'relay', error: /no relay connected/ },
  ]);
  server.clock.advance(2000);
  await server.app.jobs.dispatcher.runDue();
  t.equal((await traceOf(server, account.account_id, 'webhook.attempt')).length, 2);
});

t.test('a second relay for the same key closes the first with code 4000', async (t) => {
  const server = await startTestServer(t);
  const { account } = await webhookSetup(server);
  const first = new WebSocket(wsUrl(server.baseUrl), { headers: { authorization: `Bearer ${account.key.token}` } });
  await new Promise((resolve) => first.on('open', resolve));
  const closed = new Promise<number>((resolve) => first.on('close', (code) => resolve(code)));
  const second = new WebSocket(`${wsUrl(server.baseUrl)}?token=${account.key.token}`);
  t.teardown(() => second.close());
  await new Promise((resolve) => second.on('open', resolve));
  t.equal(await closed, 4000);
  t.ok(server.app.jobs.relay.isConnected(account.account_id), 'the newer relay holds the key');
});

t.test('the relay client stops, saying why, when replaced', async (t) => {
  const server = await startTestServer(t);
  const { account } = await webhookSetup(server);
  const lines: string[] = [];
  const client = startRelayClient({
    baseUrl: server.baseUrl,
    token: account.key.token,
    forwardTo: 'http://127.0.0.1:9/x',
    log: (line) => lines.push(line),
  });
  await client.connected;
  const other = new WebSocket(wsUrl(server.baseUrl), { headers: { authorization: `Bearer ${account.key.token}` } });
  t.teardown(() => other.close());
  t.same(await client.finished, { reason: 'replaced' });
  t.match(lines.join('\n'), /replaced by a newer one/);
});

t.test('the relay client reconnects after the connection drops', async (t) => {
  const server = await startTestServer(t);
  const { account } = await webhookSetup(server);
  const lines: string[] = [];
  const client = startRelayClient({
    baseUrl: server.baseUrl,
    token: account.key.token,
    forwardTo: 'http://127.0.0.1:9/x',
    log: (line) => lines.push(line),
    minBackoffMs: 10,
  });
  t.teardown(() => client.stop());
  await client.connected;
  // Drop every relay connection from the server side, as an unplugged network would.
  server.app.jobs.relay.close();
  await traceOf(server, account.account_id, 'relay.closed');
  const reconnected = await new Promise<boolean>((resolve) => {
    const check = setInterval(() => {
      if (
        lines.filter((line) => line.startsWith('relay connected')).length >= 1 &&
        lines.some((line) => line.includes('reconnecting'))
      ) {
        clearInterval(check);
        resolve(true);
      }
    }, 5);
  });
  t.ok(reconnected, 'the client noticed and scheduled a reconnection');
});

t.test('console tokens and unknown tokens are refused with 401 at the upgrade; a plain GET answers 426', async (t) => {
  const server = await startTestServer(t);
  const { account } = await webhookSetup(server);
  const consoleToken = await upgradeStatus(wsUrl(server.baseUrl), { authorization: `Bearer ${account.console_token}` });
  t.equal(consoleToken.status, 401);
  t.equal(JSON.parse(consoleToken.body).code, 'WRONG_TOKEN_KIND');
  t.equal((await upgradeStatus(wsUrl(server.baseUrl), { authorization: `Bearer sk_${'0'.repeat(64)}` })).status, 401);
  t.equal((await upgradeStatus(wsUrl(server.baseUrl))).status, 401);
  t.equal(
    (
      await upgradeStatus(`${server.baseUrl.replace('http', 'ws')}/elsewhere`, {
        authorization: `Bearer ${account.key.token}`,
      })
    ).status,
    404,
  );
  const plain = await server.api.get('/relay');
  t.equal(plain.status, 426);
  const lines: string[] = [];
  const refused = startRelayClient({
    baseUrl: server.baseUrl,
    token: account.console_token,
    forwardTo: 'http://127.0.0.1:9/x',
    log: (line) => lines.push(line),
  });
  t.match(await refused.finished, { reason: /refused/ });
});
