import type { TestServer } from '../testing/test-server.js';
import type { TraceRecord } from '../trace/trace.js';
import { catalog } from '../sessions/sessions-testkit.js';

/** The account's trace entries of one type, oldest first. */
export function traceOf(server: TestServer, accountId: string, type: string): Promise<TraceRecord[]> {
  return server.store.list<TraceRecord>('trace', {
    where: { account_id: accountId, type },
    orderBy: { field: 'order', direction: 'asc' },
  });
}

/** An account with an agreement, and a helper creating a session that posts to `webhookUrl`. */
export async function webhookSetup(server: TestServer) {
  const setup = await catalog(server);
  const sessionTo = async (webhookUrl: string | null) => {
    const json: Record<string, unknown> = { agreement_id: setup.plain.agreement_id, amount_reference: 10.5 };
    if (webhookUrl !== null) json.webhook_url = webhookUrl;
    const session = await setup.post('/api/v1/ext/payment-sessions/buttons', json);
    await server.app.jobs.dispatcher.runDue();
    return session as { session_id: string };
  };
  const force = (sessionId: string, leg: number, outcome: string) =>
    server.api.post(`/control/sessions/${sessionId}/outcome`, { json: { leg, outcome }, token: setup.token });
  return { ...setup, sessionTo, force, hooks: setup.account.hooks, secret: setup.account.key.webhook_secret };
}

/** Every delivery left runs its ladder out: the clock moved a second at a time, each due attempt made, until none is pending. */
export async function runLaddersOut(server: TestServer): Promise<void> {
  for (let i = 0; i < 40 && (await server.store.list('deliveries')).length > 0; i += 1) {
    server.clock.advance(1000);
    await server.app.jobs.dispatcher.runDue();
  }
}
