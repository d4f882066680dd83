// What the contract suite checks of deliveries: each webhook payload against
// its event's schema, and the relay (refusals, a delivery through it, sending
// through it on purpose).
import { openApiDocument } from '../openapi.js';
import { SchemaValidator } from '../validator.js';
import { openRelay, relayUpgradeStatus } from './checks/fixtures.js';
import type { ScenarioContext } from './scenario-context.js';

const schemas = new SchemaValidator(openApiDocument);
const eventSchema: Record<string, string> = {
  'payment_session.created': 'SessionCreatedEvent',
  'payment_session.paid': 'SessionPaidEvent',
  'payment_session.accredited': 'SessionAccreditedEvent',
  'payment_session.accreditation_to_recipient_failed': 'AccreditationToRecipientFailedEvent',
};
export function checkPayload(ctx: ScenarioContext, rawBody: string, where: string): void {
  let body: { event?: string };
  try {
    body = JSON.parse(rawBody);
  } catch {
    return ctx.problem(`${where}: a webhook body that is not JSON`);
  }
  const name = eventSchema[body.event ?? ''];
  if (!name) return ctx.problem(`${where}: an event the document does not name: ${body.event}`);
  for (const issue of schemas.check({ $ref: `#/components/schemas/${name}` }, body))
    ctx.problem(`${where}: ${body.event} ${issue.pointer} ${issue.message}`);
}

/** Opens the relay (101), receives deliveries for a local URL, checks their payloads, and answers 200. */
export async function relayScenario(ctx: ScenarioContext, token: string, agreementId: string): Promise<void> {
  const refusal = await relayUpgradeStatus(ctx.baseUrl, `sk_${'0'.repeat(64)}`);
  if (refusal === 401) ctx.recorder.observe('openRelay', 401);
  else ctx.problem(`the relay answered an unknown token with ${refusal}, not 401`);
  if (ctx.profile === 'strict') {
    // Ours: a resume's cursor is a position; anything else is refused before the upgrade.
    const badCursor = await relayUpgradeStatus(ctx.baseUrl, token, '?cursor=yesterday');
    if (badCursor === 400) ctx.recorder.observe('openRelay', 400);
    else ctx.problem(`the relay answered a cursor that is not a position with ${badCursor}, not 400`);
  }
  const socket = await openRelay(ctx.baseUrl, token);
  if (!socket) return ctx.problem('the relay did not open with an API token');
  ctx.recorder.observe('openRelay', 101);
  let received = 0;
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as { type: string; delivery_id: string; event_id: string; body: string };
    if (message.type !== 'webhook') return;
    // A request sent through the relay on purpose (POST /control/relay/deliveries), not an event.
    if (message.event_id.startsWith('grader_'))
      return void socket.send(JSON.stringify({ type: 'result', delivery_id: message.delivery_id, status: 204 }));
    received += 1;
    checkPayload(ctx, message.body, 'relay');
    socket.send(JSON.stringify({ type: 'result', delivery_id: message.delivery_id, status: 200 }));
  });
  await ctx.http('POST', '/api/v1/ext/payment-sessions/buttons', {
    json: { agreement_id: agreementId, amount_reference: 2, webhook_url: 'http://localhost:4000/contract-suite' },
    token,
  });
  for (let i = 0; i < 100 && received === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
  if (received === 0) ctx.problem('no delivery arrived through the relay');
  // Sending through the relay on purpose is an operation of ours alone.
  for (const path of ctx.profile === 'strict' ? ['/control/relay/deliveries', '/__test__/relay/deliveries'] : []) {
    const relayed = await ctx.http('POST', path, {
      json: { headers: { 'content-type': 'text/plain', 'x-probe': '1' }, body: 'through the relay' },
      token,
    });
    if (relayed.status === 200 && relayed.body.status !== 204)
      ctx.problem(`${path}: the relay's answer was ${relayed.body.status} (${relayed.body.error}), not the local 204`);
  }
  socket.close();
}
