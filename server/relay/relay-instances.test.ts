import t, { type Test } from 'tap';
import { startRelayClient, type RelayClient } from '../../contracts/clients/relay-client.js';
import { startExampleReceiver } from '../../scripts/example-receiver.js';
import { ManualClock } from '../clock.js';
import { defaultConfig } from '../config.js';
import { PgStore } from '../store/postgres/pg-store.js';
import { postgresSkip, startPostgres } from '../store/postgres/pg-testing.js';
import { serveApp } from '../testing/test-server.js';
import { waitFor } from '../testing/wait-for.js';
import type { TraceRecord } from '../trace/trace.js';

// Two instances on one PostgreSQL database: the relay connected to one,
// away, then back on the other. Positions and outcomes live in the
// database, so whichever instance it reaches resumes what it missed.

async function twoInstances(t: Test) {
  const connectionString = startPostgres(t);
  const clock = new ManualClock(Date.now());
  const instances = [];
  for (let i = 0; i < 2; i += 1) {
    const store = await PgStore.open({ connectionString });
    const served = await serveApp({
      store,
      sharing: 'instances',
      clock,
      config: { ...defaultConfig, scryptCost: 1024, logLevel: 'silent' },
    });
    t.teardown(served.stop);
    instances.push({ ...served, store });
  }
  return { a: instances[0]!, b: instances[1]!, clock };
}

t.test(
  'on two instances: a relay away from one comes back to the other and misses nothing',
  { skip: postgresSkip() },
  async (t) => {
    const { a, b, clock } = await twoInstances(t);
    const account = (
      await a.api.post('/console/register', { json: { email: 'relay-two@example.com', password: '12345678' } })
    ).body;
    const token = account.key.token as string;
    const received: string[] = [];
    const receiver = await startExampleReceiver({
      secret: account.key.webhook_secret,
      now: () => clock.now(),
      onEvent: (event) =>
        received.push(`${event.data && (event.data as { session_id: string }).session_id} ${event.event}`),
    });
    t.teardown(() => receiver.server.close());
    let cursor: number | null = null;
    let client: RelayClient | null = null;
    const connect = async (baseUrl: string) => {
      client = startRelayClient({
        baseUrl,
        token,
        forwardTo: receiver.url,
        log: () => undefined,
        cursor: { position: cursor, save: (position) => (cursor = position) },
      });
      await client.connected;
    };
    t.teardown(() => client?.stop());
    const agreement = (
      await b.api.post('/api/v1/ext/agreements', {
        json: { name: 'Shop', currency_reference: 'USD', split: false, payment_methods: ['card'] },
        token,
      })
    ).body;
    // Sessions are made on B, so B's dispatcher attempts their deliveries.
    const paidSession = async () => {
      const session = (
        await b.api.post('/api/v1/ext/payment-sessions/buttons', {
          json: {
            agreement_id: agreement.agreement_id,
            amount_reference: 3,
            webhook_url: 'http://localhost:4000/hook',
          },
          token,
        })
      ).body;
      await b.api.post(`/control/sessions/${session.session_id}/outcome`, { json: { leg: 1, outcome: 'paid' }, token });
      while ((await b.app.jobs.dispatcher.runDue()) > 0);
      return session.session_id as string;
    };

    await connect(a.baseUrl);
    await paidSession();
    await waitFor(() => received.length === 2, 10_000, 'two deliveries through A');
    await waitFor(() => cursor === 2, 5000, 'the cursor past them');
    client!.stop();
    await client!.finished;
    await waitFor(
      async () => (await a.store.get('relay_routes', account.account_id)) === undefined,
      5000,
      'A to drop the route',
    );

    const missed = [await paidSession(), await paidSession()];
    for (
      let i = 0;
      i < 20 && (await b.store.list('deliveries', { where: { account_id: account.account_id } })).length > 0;
      i += 1
    ) {
      clock.advance(1000);
      while ((await b.app.jobs.dispatcher.runDue()) > 0);
    }
    const gaveUp = await b.store.list<TraceRecord>('trace', {
      where: { account_id: account.account_id, type: 'webhook.gave_up' },
    });
    t.equal(gaveUp.length, 4, 'four given up while away');

    await connect(b.baseUrl);
    await waitFor(() => received.length === 6, 10_000, 'every missed delivery, from the other instance');
    for (const session of missed)
      t.same(
        received.filter((line) => line.startsWith(session)),
        [`${session} payment_session.created`, `${session} payment_session.paid`],
        `${session}: in order`,
      );
    t.equal(receiver.rejected, 0);
    t.match((await b.api.get('/console/relay', { token: account.console_token })).body, {
      connected: true,
      cursor: 2,
      last_resume: { count: 4 },
    });
  },
);
