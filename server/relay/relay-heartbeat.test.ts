import { createServer, connect, type Server, type Socket } from 'node:net';
import t from 'tap';
import { startRelayClient } from '../../contracts/clients/relay-client.js';
import { startExampleReceiver } from '../../scripts/example-receiver.js';
import { startTestServer } from '../testing/test-server.js';
import { waitFor } from '../testing/wait-for.js';
import { runLaddersOut, traceOf, webhookSetup } from '../webhooks/webhooks-testkit.js';

// A dead link: the network goes without a close (a laptop's Wi-Fi, a
// tunnel), which TCP alone notices only after minutes. A TCP proxy between
// the relay client and the server stops forwarding without closing
// anything; both ends must notice by their heartbeats, and the client must
// come back and resume. The beats are short here (100 ms) so the test is
// quick; the defaults are 10 s (a dead link noticed within 20 s).

const BEAT_MS = 100;

/** A TCP proxy to `port` that can stop forwarding on the connections it holds, closing nothing. */
async function blackholingProxy(
  port: number,
): Promise<{ url: string; blackhole: () => void; cutOff: (cut: boolean) => void; close: () => void }> {
  const held: Array<{ client: Socket; upstream: Socket; dropped: boolean }> = [];
  let cut = false;
  const server: Server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    // Cut off, a new connection is taken and goes nowhere: a network that is gone.
    const link = { client, upstream, dropped: cut };
    held.push(link);
    client.on('data', (chunk) => link.dropped || upstream.write(chunk));
    upstream.on('data', (chunk) => link.dropped || client.write(chunk));
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      a.on('close', () => link.dropped || b.destroy());
      a.on('error', () => undefined);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: own } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${own}`,
    // The connections held now go silent; new ones are forwarded.
    blackhole: () => held.forEach((link) => (link.dropped = true)),
    cutOff: (value: boolean) => {
      cut = value;
      if (cut) held.forEach((link) => (link.dropped = true));
    },
    close: () => {
      for (const link of held) {
        link.client.destroy();
        link.upstream.destroy();
      }
      server.close();
    },
  };
}

t.test(
  'a link that goes silent without a close is noticed by both ends within two beats, and the client comes back by itself',
  async (t) => {
    const server = await startTestServer(t, { relayHeartbeatMs: BEAT_MS });
    const { sessionTo, account, secret } = await webhookSetup(server);
    const proxy = await blackholingProxy(Number(new URL(server.baseUrl).port));
    t.teardown(proxy.close);
    const events: string[] = [];
    const receiver = await startExampleReceiver({
      secret,
      now: () => server.clock.now(),
      onEvent: (e) => events.push(e.event_id),
    });
    t.teardown(() => receiver.server.close());
    const lines: string[] = [];
    let cursor: number | null = null;
    const client = startRelayClient({
      baseUrl: proxy.url,
      token: account.key.token,
      forwardTo: receiver.url,
      log: (line) => lines.push(line),
      heartbeatMs: BEAT_MS,
      minBackoffMs: 20,
      cursor: { position: null, save: (position) => (cursor = position) },
    });
    t.teardown(() => client.stop());
    await client.connected;
    await waitFor(() => cursor === 0, 5000, 'the first resume message');

    const silent = Date.now();
    proxy.blackhole();
    await waitFor(() => !server.app.jobs.relay.isConnected(account.account_id), 5000, 'the server to notice');
    const serverNoticed = Date.now() - silent;
    await waitFor(() => lines.some((line) => line.startsWith('relay link silent')), 5000, 'the client to notice');
    const clientNoticed = Date.now() - silent;
    t.ok(
      serverNoticed <= 20 * BEAT_MS, // two beats, with room for a loaded machine's timers
      `the server closed the dead link after ${serverNoticed} ms (beats of ${BEAT_MS} ms)`,
    );
    t.ok(clientNoticed <= 20 * BEAT_MS, `the client after ${clientNoticed} ms`);
    t.match(await traceOf(server, account.account_id, 'relay.closed'), [{ code: 1006 }], 'the trace records the close');

    // The client is back through the proxy, on its own, and deliveries flow again.
    await waitFor(() => server.app.jobs.relay.isConnected(account.account_id), 5000, 'the client to reconnect');
    await waitFor(() => lines.filter((line) => line.startsWith('relay connected')).length >= 2, 5000, 'its line');
    t.pass('it reconnected by itself');
    const session = await sessionTo('http://localhost:4000/webhooks');
    await waitFor(() => events.length === 1, 5000, 'the next delivery');
    t.match((await traceOf(server, account.account_id, 'webhook.attempt')).at(-1), {
      session_id: session.session_id,
      routing: 'relay',
      status: 200,
    });
  },
);

t.test('the scenario through a network that goes silent instead of a kill: nothing is lost', async (t) => {
  const server = await startTestServer(t, { relayHeartbeatMs: BEAT_MS });
  const { sessionTo, force, account, secret } = await webhookSetup(server);
  const proxy = await blackholingProxy(Number(new URL(server.baseUrl).port));
  t.teardown(proxy.close);
  const received: string[] = [];
  const receiver = await startExampleReceiver({
    secret,
    now: () => server.clock.now(),
    onEvent: (e) => received.push(e.event_id),
  });
  t.teardown(() => receiver.server.close());
  let cursor: number | null = null;
  const client = startRelayClient({
    baseUrl: proxy.url,
    token: account.key.token,
    forwardTo: receiver.url,
    log: () => undefined,
    heartbeatMs: BEAT_MS,
    minBackoffMs: 20,
    maxBackoffMs: 200,
    cursor: { position: null, save: (position) => (cursor = position) },
  });
  t.teardown(() => client.stop());
  await client.connected;
  const paid = async () => {
    const session = await sessionTo('http://localhost:4000/webhooks');
    await force(session.session_id, 1, 'paid');
    await server.app.jobs.dispatcher.runDue();
  };
  for (let i = 0; i < 3; i += 1) await paid();
  await waitFor(() => received.length === 6, 5000, 'six deliveries');

  proxy.cutOff(true);
  await waitFor(() => !server.app.jobs.relay.isConnected(account.account_id), 5000, 'the server to notice');
  for (let i = 0; i < 3; i += 1) await paid();
  await runLaddersOut(server);
  t.equal(
    (await traceOf(server, account.account_id, 'webhook.gave_up')).length,
    6,
    'six given up while the network was gone',
  );
  proxy.cutOff(false);
  await waitFor(() => received.length === 12, 10_000, 'every missed delivery once the network is back');
  t.equal(new Set(received).size, 12, '0 of 12 lost, none twice');
  await waitFor(() => cursor === 12, 5000, 'the cursor at the end');
});
