import t, { type Test } from 'tap';
import { WebSocket } from 'ws';
import { startRelayClient, type RelayClient } from '../../contracts/clients/relay-client.js';
import { startExampleReceiver } from '../../scripts/example-receiver.js';
import { startTestServer } from '../testing/test-server.js';
import { waitFor } from '../testing/wait-for.js';
import { runLaddersOut, traceOf, webhookSetup } from '../webhooks/webhooks-testkit.js';
import { missedDeliveries } from './relay-positions.js';

// The relay's resume: a client away (asleep, offline, stopped) misses
// nothing. Everything runs for real (HTTP, WebSockets, the store); the
// ladders run on the test clock.

const LOCAL = 'http://localhost:4000/webhooks';

async function relayWorld(t: Test) {
  const server = await startTestServer(t);
  const setup = await webhookSetup(server);
  const received: Array<{ event: string; session: string; key: string; eventId: string }> = [];
  const receiver = await startExampleReceiver({
    secret: setup.secret,
    now: () => server.clock.now(),
    onEvent: (event, key) =>
      received.push({
        event: event.event,
        session: (event.data as { session_id: string }).session_id,
        key,
        eventId: event.event_id,
      }),
  });
  t.teardown(() => receiver.server.close());
  const lines: string[] = [];
  let kept: number | null = null;
  let client: RelayClient | null = null;
  const connect = async (options: { backfillMs?: number; keepCursor?: boolean } = {}) => {
    client = startRelayClient({
      baseUrl: server.baseUrl,
      token: setup.account.key.token,
      forwardTo: receiver.url,
      log: (line) => lines.push(line),
      cursor: { position: options.keepCursor === false ? null : kept, save: (position) => (kept = position) },
      ...(options.backfillMs ? { backfillMs: options.backfillMs } : {}),
    });
    await client.connected;
  };
  const away = async () => {
    client!.stop();
    await client!.finished;
    // The server sees the close before anything else is routed.
    await waitFor(() => !server.app.jobs.relay.isConnected(setup.account.account_id), 5000, 'the relay to be gone');
  };
  t.teardown(() => client?.stop());
  const paidSession = async () => {
    const session = await setup.sessionTo(LOCAL);
    await setup.force(session.session_id, 1, 'paid');
    await server.app.jobs.dispatcher.runDue();
    return session.session_id;
  };
  return { server, ...setup, received, receiver, lines, connect, away, paidSession, cursor: () => kept };
}

t.test('the scenario: a relay away while sessions are created and paid misses none of their deliveries', async (t) => {
  const world = await relayWorld(t);
  const { server, account, received } = world;
  await world.connect();
  for (let i = 0; i < 5; i += 1) await world.paidSession();
  await waitFor(() => received.length === 10, 10_000, 'the first ten deliveries');
  t.equal(world.cursor(), 10, 'the cursor follows the acknowledged deliveries');

  // Away: five sessions created and paid, five more created; every ladder runs out meanwhile.
  await world.away();
  const missedSessions: string[] = [];
  for (let i = 0; i < 5; i += 1) missedSessions.push(await world.paidSession());
  for (let i = 0; i < 5; i += 1) missedSessions.push((await world.sessionTo(LOCAL)).session_id);
  await runLaddersOut(server);
  const gaveUp = await traceOf(server, account.account_id, 'webhook.gave_up');
  t.equal(gaveUp.length, 15, 'before: 15 deliveries given up while no relay was connected');

  await world.connect();
  await waitFor(() => received.length === 25, 10_000, 'every missed delivery');
  t.equal(received.length, 25, 'all 25 arrived, none twice');
  t.equal(world.receiver.rejected, 0, 'each with a valid signature (a fresh svc-timestamp)');
  const emitted = await traceOf(server, account.account_id, 'webhook.emitted');
  const keyOf = new Map(emitted.map((entry) => [entry.event_id as string, entry.idempotency_key as string]));
  t.ok(
    received.every((delivery) => keyOf.get(delivery.eventId) === delivery.key),
    'each with the idempotency-key of its emission',
  );
  for (const session of missedSessions) {
    const order = received.filter((delivery) => delivery.session === session).map((delivery) => delivery.event);
    const expected =
      order.length === 2 ? ['payment_session.created', 'payment_session.paid'] : ['payment_session.created'];
    t.same(order, expected, `${session}: its events in their order`);
  }
  // The receiver has each one; the last attempt is recorded once the client's answer is back.
  const resumedAttempts = async () =>
    (await traceOf(server, account.account_id, 'webhook.attempt')).filter((a) => a.resumed);
  await waitFor(async () => (await resumedAttempts()).length === 15, 5000, 'the last resumed attempt recorded');
  const resumed = await resumedAttempts();
  t.equal(resumed.length, 15, 'the trace marks the 15 attempts resumed');
  t.ok(
    resumed.every((a) => a.routing === 'relay' && a.status === 200),
    'each through the relay, answered 200',
  );
  t.match(await traceOf(server, account.account_id, 'relay.resumed'), [{ after: 10, count: 15 }]);
  t.match(
    world.lines.join('\n'),
    /resuming 15 missed deliveries, first routed at \S+ \(cursor 10\)/,
    'svc-relay says so',
  );
  await waitFor(() => world.cursor() === 25, 5000, 'the cursor at the end');
  t.equal(world.cursor(), 25);
  t.same((await missedDeliveries(server.store, account.account_id, 0)).deliveries, [], 'nothing left missed');
});

t.test(
  'a delivery still on its ladder is not sent twice; a cursor ahead of the sequence starts at its head',
  async (t) => {
    const world = await relayWorld(t);
    const { server, account, received } = world;
    await world.connect();
    await world.away();
    const session = await world.sessionTo(LOCAL); // attempted at once, no relay: the ladder waits 2 s
    t.equal((await traceOf(server, account.account_id, 'webhook.attempt')).length, 1);
    await world.connect();
    await waitFor(() => world.lines.some((line) => line.startsWith('nothing missed')), 5000, 'the resume message');
    t.equal(received.length, 0, 'not resumed: its ladder still runs');
    server.clock.advance(2000);
    await server.app.jobs.dispatcher.runDue();
    await waitFor(() => received.length === 1, 5000, "the ladder's attempt");
    t.equal(received[0]!.session, session.session_id, 'the ladder delivered it, once');
    t.notOk(
      (await traceOf(server, account.account_id, 'webhook.attempt')).some((a) => a.resumed),
      'no resumed attempt',
    );
    await waitFor(() => world.cursor() === 1, 5000, 'the cursor');

    await world.away();
    const ahead = startRelayClient({
      baseUrl: server.baseUrl,
      token: account.key.token,
      forwardTo: world.receiver.url,
      log: () => undefined,
      cursor: { position: 999, save: () => undefined },
    });
    t.teardown(() => ahead.stop());
    await ahead.connected;
    await waitFor(
      async () => (await traceOf(server, account.account_id, 'relay.resumed')).length === 2,
      5000,
      'resume',
    );
    t.match((await traceOf(server, account.account_id, 'relay.resumed')).at(-1), { after: 1, count: 0 });
  },
);

t.test('a first connection backfills what was missed over a window, and no more', async (t) => {
  const world = await relayWorld(t);
  const { server, account, received } = world;
  const old = await world.sessionTo(LOCAL);
  await runLaddersOut(server);
  server.clock.advance(3 * 3_600_000); // three hours pass
  const recent = await world.sessionTo(LOCAL);
  await runLaddersOut(server);
  await world.connect({ backfillMs: 2 * 3_600_000, keepCursor: false });
  await waitFor(() => received.length === 1, 5000, 'the backfill');
  await waitFor(() => world.lines.some((line) => line.startsWith('resuming 1 missed delivery')), 5000, 'its line');
  t.equal(received[0]!.session, recent.session_id, 'the recent one');
  t.notOk(
    received.some((delivery) => delivery.session === old.session_id),
    'not the one older than the window',
  );
  t.match(await traceOf(server, account.account_id, 'relay.connected'), [{ backfill_ms: 7_200_000 }]);

  // The bound: a backfill resends at most its limit, oldest first, and says how many it left out.
  // Once the resumed one's answer is recorded, only the old one is missed.
  const capped0 = () => missedDeliveries(server.store, account.account_id, 0, 0);
  await waitFor(async () => (await capped0()).leftOut === 1, 5000, 'the resumed attempt recorded');
  const capped = await capped0();
  t.equal(capped.deliveries.length, 0);
  t.equal(capped.leftOut, 1, 'the old one, left out and counted');
});

t.test('a bad cursor or backfill is refused before the upgrade, with a clear 400', async (t) => {
  const server = await startTestServer(t);
  const { account } = await webhookSetup(server);
  const refusal = (query: string) =>
    new Promise<{ status: number; body: unknown }>((resolve, reject) => {
      const ws = new WebSocket(`${server.baseUrl.replace('http', 'ws')}/relay?${query}`, {
        headers: { authorization: `Bearer ${account.key.token}` },
      });
      ws.on('unexpected-response', (_request, response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode!, body: JSON.parse(text) }));
      });
      ws.on('open', () => {
        ws.close();
        resolve({ status: 101, body: {} });
      });
      ws.on('error', (error) => (error.message.includes('Unexpected server response') ? undefined : reject(error)));
    });
  t.match(await refusal('cursor=-1'), {
    status: 400,
    body: { code: 'VALIDATION_FAILED', message: /cursor must be a position/ },
  });
  t.match(await refusal('backfill_ms=999999999999'), {
    status: 400,
    body: { message: /backfill_ms must be from 1 to 86400000/ },
  });
  t.match(await refusal('cursor=1&backfill_ms=5'), { status: 400, body: { message: /not both/ } });
});

t.test("a second relay taking the key over starts from the cursor it sends, not the first one's", async (t) => {
  const world = await relayWorld(t);
  const { server, account, received } = world;
  await world.connect();
  await world.away();
  await world.sessionTo(LOCAL);
  await runLaddersOut(server);
  // Another machine, with no cursor of its own: it starts from now.
  const other = startRelayClient({
    baseUrl: server.baseUrl,
    token: account.key.token,
    forwardTo: world.receiver.url,
    log: () => undefined,
    cursor: { position: null, save: () => undefined },
  });
  t.teardown(() => other.stop());
  await other.connected;
  await waitFor(async () => (await traceOf(server, account.account_id, 'relay.connected')).length === 2, 5000, 'it');
  t.equal(received.length, 0, 'nothing resumed for it');
  // The first comes back with its cursor and takes the key over (4000 closes the other): what it missed comes.
  await world.connect();
  await waitFor(() => received.length === 1, 5000, 'the missed delivery');
  t.match(await other.finished, { reason: 'replaced' });
});
