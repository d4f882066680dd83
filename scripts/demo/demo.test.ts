import t from 'tap';
import { validatingFetch } from '../../contracts/testing/contract-client.js';
import { signingClock, startTestServer } from '../../server/testing/test-server.js';
import { describeWorld, seedDemo } from './seed.js';

t.test(
  'the demo world is readable through the API: orders in every state, sessions in every status with split receivers',
  async (t) => {
    const server = await startTestServer(t);
    const world = await seedDemo(server.baseUrl, { now: signingClock(server), fetch: validatingFetch() });
    const orders = await server.api.get(`/api/v1/merchants/${world.merchantId}/transactions?size=100`, {
      token: world.apiToken,
    });
    t.same([...new Set(orders.body.data.map((o: { status: string }) => o.status))].sort(), [
      'DISCARDED',
      'PAID',
      'PENDING',
      'VOIDED',
      'VOID_PENDING',
    ]);
    const overridden = orders.body.data.find((o: { orderId: string }) => o.orderId === world.orders.overridden);
    t.match(overridden.history.at(-1), { overridesDiscard: true });
    const sessions = (await server.api.get('/console/sessions', { token: world.consoleToken })).body.data;
    t.same([...new Set(sessions.map((s: { status: string }) => s.status))].sort(), [
      'expired',
      'failed',
      'paid',
      'pending',
    ]);
    const accredited = (
      await server.api.get(`/payment-sessions/${world.sessions.accredited}`, { token: world.apiToken })
    ).body;
    t.equal(accredited.session_payment.receiver_credits_summary.total_credits, 3, 'two partners and the owner');
    t.match(
      (await server.api.get(`/payment-sessions/${world.sessions.scheduled}`, { token: world.apiToken })).body
        .accreditation,
      { status: 'scheduled' },
    );
    t.match((await server.api.get(`/payment-sessions/${world.sessions.failed}`, { token: world.apiToken })).body, {
      status: 'failed',
      failure_reason: 'insufficient_funds',
    });
    const settlements = await server.api.get(
      `/api/v1/merchants/${world.merchantId}/pos-terminals/${world.terminals[0]!.serialNumber}/settlements`,
      { token: world.apiToken },
    );
    t.equal(settlements.body.data.length, 2);
    t.equal((await server.api.get(`/pay/${world.sessions.pending}`)).status, 200, 'the printed payment page opens');
    const text = describeWorld(world);
    t.match(text, world.consoleToken);
    t.match(text, `${server.baseUrl}/console`);
    t.match(text, `${server.baseUrl}/pay/${world.sessions.pending}`);
    t.match(
      text,
      new RegExp(`\\n  login email +${world.email}\\n  login password +${world.password}\\n`),
      'each credential on its own labelled line',
    );
    const login = await server.api.post('/api/svcpagos/login', {
      json: { email: world.email, password: world.password },
    });
    t.equal(login.status, 200, 'the printed password logs in');
  },
);
