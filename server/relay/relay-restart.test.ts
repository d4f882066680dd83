import { createServer } from 'node:net';
import t from 'tap';
import { startRelayClient, type RelayClient } from '../../contracts/clients/relay-client.js';
import { contractClient } from '../../contracts/testing/contract-client.js';
import { startExampleReceiver } from '../../scripts/example-receiver.js';
import { startServerProcess, stopped, stopServerProcess, type ServerProcess } from '../testing/server-process.js';
import { waitFor } from '../testing/wait-for.js';

// The server killed -9 while the relay is away: the positions, the cursor's
// meaning and the outbox are durable, so the relay that comes back to the
// restarted server still gets every delivery it missed.

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

t.test(
  'the server killed -9 while the relay is away: back on the restarted server, the relay misses nothing',
  async (t) => {
    const env = { DATA_DIR: t.testdir(), PORT: String(await freePort()) };
    let server: ServerProcess = await startServerProcess(env);
    t.teardown(() => stopServerProcess(server));
    const api = contractClient(server.baseUrl);
    const account = (
      await api.post('/console/register', {
        json: { email: `relay-kill-${Date.now()}@example.com`, password: '12345678' },
      })
    ).body;
    const token = account.key.token as string;
    const agreement = (
      await api.post('/api/v1/ext/agreements', {
        json: { name: 'Shop', currency_reference: 'USD', split: false, payment_methods: ['card'] },
        token,
      })
    ).body;
    // The account's clock moves ahead to run the ladders out; the receiver judges timestamps by it.
    let offsetMs = 0;
    const received: string[] = [];
    const receiver = await startExampleReceiver({
      secret: account.key.webhook_secret,
      now: () => Date.now() + offsetMs,
      onEvent: (event) => received.push(event.event_id),
    });
    t.teardown(() => receiver.server.close());
    let cursor: number | null = null;
    let client: RelayClient | null = null;
    const connect = async () => {
      client = startRelayClient({
        baseUrl: server.baseUrl,
        token,
        forwardTo: receiver.url,
        log: () => undefined,
        cursor: { position: cursor, save: (position) => (cursor = position) },
      });
      await client.connected;
    };
    t.teardown(() => client?.stop());
    const paidSession = async () => {
      const session = (
        await api.post('/api/v1/ext/payment-sessions/buttons', {
          json: {
            agreement_id: agreement.agreement_id,
            amount_reference: 5,
            webhook_url: 'http://localhost:4000/webhooks',
          },
          token,
        })
      ).body;
      t.equal(
        (
          await api.post(`/control/sessions/${session.session_id}/outcome`, {
            json: { leg: 1, outcome: 'paid' },
            token,
          })
        ).status,
        200,
      );
    };
    const gaveUp = async () =>
      (await api.get('/console/trace?type=webhook.gave_up&limit=100', { token: account.console_token })).body.data
        .length;

    await connect();
    for (let i = 0; i < 2; i += 1) await paidSession();
    await waitFor(() => received.length === 4, 10_000, 'the first four deliveries');
    await waitFor(() => cursor === 4, 5000, 'the cursor past them');
    client!.stop();
    await client!.finished;

    for (let i = 0; i < 3; i += 1) await paidSession();
    // No relay: each delivery climbs the ladder (0, 2, 5 s on the account's clock) and is given up.
    const attempts = async () =>
      (await api.get('/console/trace?type=webhook.attempt&limit=1000', { token: account.console_token })).body.data
        .length;
    for (let step = 0; step < 40 && (await gaveUp()) < 6; step += 1) {
      const before = await attempts();
      const next = (await api.get('/control/clock/next', { token })).body.next as { in_ms: number } | null;
      if (next) {
        const ms = Math.max(1, next.in_ms);
        await api.post('/control/clock/advance', { json: { ms }, token });
        offsetMs += ms;
      }
      // The server's dispatcher makes the attempt now due.
      await waitFor(async () => (await attempts()) > before || (await gaveUp()) === 6, 5000, 'the next attempt');
    }
    t.equal(await gaveUp(), 6, 'six deliveries given up while the relay was away');

    server.child.kill('SIGKILL');
    await stopped(server.child);
    server = await startServerProcess(env);
    await connect();
    await waitFor(() => received.length === 10, 20_000, 'every missed delivery, after the restart');
    t.equal(new Set(received).size, 10, '0 of 10 lost, none twice');
    t.equal(receiver.rejected, 0, 'each signed for the time it was sent');
    const resumed = (await contractClient(server.baseUrl).get('/console/relay', { token: account.console_token })).body;
    t.match(resumed, { connected: true, cursor: 4, last_resume: { count: 6 }, resumed_total: 6 });
  },
);
