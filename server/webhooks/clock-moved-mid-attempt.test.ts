import { once } from 'node:events';
import t from 'tap';
import { WebSocket } from 'ws';
import { startTestServer } from '../testing/test-server.js';
import { waitFor } from '../testing/wait-for.js';
import { traceOf, webhookSetup } from './webhooks-testkit.js';

// An attempt is on the network (here: a relayed delivery whose local
// receiver has not answered yet) when the account's clock moves. The
// session's next event, queued behind it, becomes due when the attempt
// closes, on the clock as it then is: before, it was timed on the clock as
// it was when the attempt began, and waited the length of the move (found
// by a scenario on PostgreSQL: a paid event in flight while the clock moved
// past the accreditation delay left the accredited event, emitted by that
// move, 5 s late).

t.test('the next event of a session is due at once when an attempt closes after a clock move', async (t) => {
  const server = await startTestServer(t);
  const { post, plain, force, account, token } = await webhookSetup(server);
  const relay = new WebSocket(`${server.baseUrl.replace('http', 'ws')}/relay`, {
    headers: { authorization: `Bearer ${token}` },
  });
  t.teardown(() => relay.close());
  await once(relay, 'open');
  const held: string[] = [];
  relay.on('message', (data) => {
    const message = JSON.parse(String(data)) as { type: string; delivery_id: string };
    if (message.type === 'webhook') held.push(message.delivery_id);
  });

  // The created event goes to the relay; its receiver holds the answer.
  const session = (await post('/api/v1/ext/payment-sessions/buttons', {
    agreement_id: plain.agreement_id,
    amount_reference: 10.5,
    webhook_url: 'http://localhost:4000/webhooks',
  })) as { session_id: string };
  const passes = server.app.jobs.dispatcher.runDue();
  await waitFor(() => held.length === 1, 5000, 'the created event at the relay');
  // Meanwhile the clock moves a minute, and then the session is paid: its event, stamped on the moved clock, queued.
  // The move is written at once; its answer waits for the passes it runs, which wait on the held attempt.
  const moving = server.api.post('/control/clock/advance', { json: { ms: 60_000 }, token });
  await waitFor(
    async () =>
      (await server.store.get<{ clock_offset_ms: number }>('accounts', account.account_id))?.clock_offset_ms === 60_000,
    5000,
    'the clock move written',
  );
  t.equal((await force(session.session_id, 1, 'paid')).status, 200);

  // The receiver answers: the attempt closes, and the paid event is due now, not a minute from now.
  relay.send(JSON.stringify({ type: 'result', delivery_id: held[0], status: 200 }));
  await waitFor(() => held.length === 2, 5000, 'the paid event at the relay, the clock not moved again');
  relay.send(JSON.stringify({ type: 'result', delivery_id: held[1], status: 200 }));
  t.equal((await moving).status, 200);
  await passes;
  await server.app.jobs.dispatcher.runDue();
  const attempts = await traceOf(server, account.account_id, 'webhook.attempt');
  t.same(
    attempts.map((entry) => [entry.event, entry.status ?? entry.error]),
    [
      ['payment_session.created', 200],
      ['payment_session.paid', 200],
    ],
    'both delivered without the clock moving again',
  );
});
