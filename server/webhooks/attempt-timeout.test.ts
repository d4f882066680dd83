import t from 'tap';
import { startTestServer } from '../testing/test-server.js';
import { traceOf, webhookSetup } from './webhooks-testkit.js';
import { WebSocket } from 'ws';

t.test('each attempt is limited to 5000 ms: a relayed receiver that never answers is cut off', async (t) => {
  const limits: number[] = [];
  const controllers: AbortController[] = [];
  // The attempt's limit is a signal the test fires: no waiting for 5 real seconds.
  const server = await startTestServer(t, {}, undefined, undefined, (ms) => {
    limits.push(ms);
    const controller = new AbortController();
    controllers.push(controller);
    return controller.signal;
  });
  const { account, post, plain } = await webhookSetup(server);
  const silent = new WebSocket(`${server.baseUrl.replace('http', 'ws')}/relay`, {
    headers: { authorization: `Bearer ${account.key.token}` },
  });
  t.teardown(() => silent.close());
  await new Promise((resolve) => silent.on('open', resolve));
  const gotDelivery = new Promise((resolve) => silent.on('message', resolve));
  await post('/api/v1/ext/payment-sessions/buttons', {
    agreement_id: plain.agreement_id,
    amount_reference: 1,
    webhook_url: 'http://localhost:1/hook',
  });
  await gotDelivery; // the relay client received it and will never answer
  t.same(limits, [5000], 'the attempt asked for a 5000 ms limit');
  controllers[0]!.abort();
  await server.app.jobs.dispatcher.runDue();
  t.match(await traceOf(server, account.account_id, 'webhook.attempt'), [
    { routing: 'relay', error: /timed out after 5000 ms/ },
  ]);
});
