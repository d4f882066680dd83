import { PosClient } from '../clients/pos-client.js';
import { openApiDocument } from '../openapi.js';
import { SchemaValidator } from '../validator.js';
import type { Profile } from '../profiles.js';
import { openRelay, relayUpgradeStatus } from './checks/fixtures.js';
import type { Expectations } from './expectations.js';
import type { Recorder } from './recorder.js';
import { recordingFetch, type RequestLimits, type SuiteHttp } from './suite-client.js';

export interface World {
  token: string;
  consoleToken: string;
  accountId: string;
  merchantId: string;
  email: string;
  password: string;
  hooks: Record<string, string>;
  serial: string;
  secret: string;
  pos: PosClient;
  sessionId: string;
  agreementId: string;
  stopId: string;
  batchId: string;
  eventId: string;
}

export interface ScenarioContext {
  http: SuiteHttp;
  baseUrl: string;
  recorder: Recorder;
  /** Problems that are not answers breaking the document (e.g. a webhook payload off its schema). */
  problem: (message: string) => void;
  /** The per-request time limit, for clients the scenarios make (the terminal's). */
  limits: RequestLimits;
  profile: Profile;
  /** The running check's expectations (failures recorded under its id). */
  readonly expectations: Expectations;
  /** When set (--operation), the negative requests are made for these operations (ids or tags) only. */
  operations?: string[];
}

const schemas = new SchemaValidator(openApiDocument);
const eventSchema: Record<string, string> = {
  'payment_session.created': 'SessionCreatedEvent',
  'payment_session.paid': 'SessionPaidEvent',
  'payment_session.accredited': 'SessionAccreditedEvent',
  'payment_session.accreditation_to_recipient_failed': 'AccreditationToRecipientFailedEvent',
};
const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;

function checkPayload(ctx: ScenarioContext, rawBody: string, where: string): void {
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

/** Builds a world through the API, exercising every operation's success and its specific answers on the way. */
export async function mutatingScenarios(ctx: ScenarioContext): Promise<World> {
  const { http } = ctx;
  const email = `contract-${unique()}@example.com`;
  const password = 'contract suite password';

  // Accounts (INTERFACE.md §1).
  const registered = (
    await http('POST', '/console/register', { json: { email, password, short_name: `c${unique()}` } })
  ).body;
  await http('POST', '/console/register', { json: { email, password } }); // 409
  const registerEmail = `register-${unique()}@example.com`;
  await http('POST', '/register', { json: { email: registerEmail, password } });
  await http('POST', '/register', { json: { email: registerEmail, password } }); // 409
  const login = (await http('POST', '/api/svcpagos/login', { json: { email, password } })).body;
  await http('POST', '/api/svcpagos/login', { json: { email, password: 'wrong password' } }); // 401
  await http('POST', '/api/svcpagos/refresh-token', { json: { refreshToken: login.refreshToken } });
  await http('POST', '/api/svcpagos/refresh-token', { json: { refreshToken: `rt_${'0'.repeat(64)}` } }); // 401
  const token: string = registered.key.token;
  const consoleToken: string = login.console_token;
  await http('GET', '/console/keys', { token: consoleToken });

  // System and console pages.
  for (const path of ['/health', '/openapi.json', '/fidelidad', '/console', '/console/app.js']) await http('GET', path);
  await http('GET', '/relay'); // 426

  // Control plane clock, also under /__test__.
  for (const prefix of ['/control', '/__test__']) {
    await http('GET', `${prefix}/clock`, { token });
    await http('POST', `${prefix}/clock/advance`, { json: { ms: 1 }, token });
    // What the clock reaches next is an operation of ours alone.
    if (ctx.profile === 'strict') await http('GET', `${prefix}/clock/next`, { token });
  }

  // Terminals (INTERFACE.md §2).
  const merchant = `/api/v1/merchants/${registered.merchant_id}`;
  const serial = `CT-${unique()}`;
  const provisioned = (
    await http('POST', `${merchant}/pos-terminals`, { json: { serialNumber: serial, label: 'contract suite' }, token })
  ).body;
  await http('POST', `${merchant}/pos-terminals`, { json: { serialNumber: serial }, token }); // 409
  await http('POST', '/api/v1/merchants/mer_000000000000000000/pos-terminals', {
    json: { serialNumber: `X-${unique()}` },
    token,
  }); // 404
  await http('GET', `${merchant}/pos-terminals`, { token });
  await http('GET', '/api/v1/merchants/mer_000000000000000000/pos-terminals', { token }); // 404
  const rotated = (await http('POST', `${merchant}/pos-terminals/${serial}/secret`, { token })).body;
  await http('POST', `${merchant}/pos-terminals/NO-SUCH-TERMINAL/secret`, { token }); // 404
  const secret: string = rotated.secret ?? provisioned.secret;
  const pos = new PosClient({
    baseUrl: ctx.baseUrl,
    serialNumber: serial,
    secret,
    fetch: recordingFetch(ctx.recorder, ctx.limits),
  });

  // Orders (INTERFACE.md §3).
  const order = async (orderId: string, amount = 1500) =>
    http('POST', `${merchant}/transactions`, { json: { orderId, terminal: serial, amount, currency: 'USD' }, token });
  const o1 = `o1-${unique()}`;
  await order(o1);
  await order(o1); // 409
  await http('POST', `${merchant}/transactions`, {
    json: { terminal: 'NO-SUCH-TERMINAL', amount: 1, currency: 'USD' },
    token,
  }); // 404
  await http('GET', `${merchant}/transactions/${o1}`, { token });
  await http('GET', `${merchant}/transactions/no-such-order`, { token }); // 404
  await http('GET', `${merchant}/transactions?status=PENDING&size=5`, { token });
  await http('GET', '/api/v1/merchants/mer_000000000000000000/transactions', { token }); // 404
  await pos.listOrders({ status: 'PENDING' });
  await pos.commitPayment(o1, { authorizationCode: 'CT1', paidAt: new Date().toISOString(), amount: 1 }); // 422
  await pos.commitPayment(o1, { authorizationCode: 'CT1', paidAt: new Date().toISOString() });
  await pos.commitPayment(o1, { authorizationCode: 'OTHER', paidAt: new Date().toISOString() }); // 409
  await pos.commitPayment('no-such-order', { authorizationCode: 'CT1', paidAt: new Date().toISOString() }); // 404
  await pos.commitVoid(o1); // 409: PAID
  await pos.commitVoid('no-such-order'); // 404
  await http('POST', `${merchant}/transactions/${o1}/invalidation`, { json: { reason: 'contract suite' }, token });
  await pos.commitVoid(o1);
  await http('POST', `${merchant}/transactions/${o1}/invalidation`, { token }); // 409: VOIDED
  await http('POST', `${merchant}/transactions/no-such-order/invalidation`, { token }); // 404

  // Settlements (INTERFACE.md §4).
  const settlement = {
    batchNumber: `B-${unique()}`.slice(0, 32),
    transactionCount: 1,
    closedAt: new Date().toISOString(),
    currencyReference: 'USD',
    terminal: serial,
    debitBatch: 'D1',
  };
  await pos.notifySettlement(settlement);
  await pos.notifySettlement({ ...settlement, transactionCount: 2 }); // 409
  await http('GET', `${merchant}/pos-terminals/${serial}/settlements?sort=-closedAt&size=1`, { token });
  await http('GET', `${merchant}/pos-terminals/NO-SUCH-TERMINAL/settlements`, { token }); // 404

  // Payment sessions (INTERFACE.md §5).
  const ext = '/api/v1/ext';
  const agreement = (
    await http('POST', `${ext}/agreements`, {
      json: { name: 'contract', currency_reference: 'USD', split: true, payment_methods: ['card', 'transfer'] },
      token,
    })
  ).body;
  const partner = (
    await http('POST', `${ext}/partners`, { json: { name: 'contract partner', document_id: 'DOC-1' }, token })
  ).body;
  await http('POST', `${ext}/split-agreements`, {
    json: { agreement_id: agreement.agreement_id, partner_id: partner.partner_id },
    token,
  });
  await http('POST', `${ext}/split-agreements`, {
    json: { agreement_id: agreement.agreement_id, partner_id: partner.partner_id },
    token,
  }); // 409
  await http('POST', `${ext}/split-agreements`, {
    json: { agreement_id: 'agr_000000000000000000', partner_id: partner.partner_id },
    token,
  }); // 404
  const sessionBody = {
    agreement_id: agreement.agreement_id,
    amount_reference: 20,
    webhook_url: registered.hooks.captura,
    split: { distribution: [{ partner_id: partner.partner_id, amount_reference: 5 }] },
  };
  const session = (await http('POST', `${ext}/payment-sessions/buttons`, { json: sessionBody, token })).body;
  await http('POST', `${ext}/payment-sessions/buttons`, {
    json: { agreement_id: 'agr_000000000000000000', amount_reference: 1 },
    token,
  }); // 404
  const batch = (await http('POST', `${ext}/payment-sessions/requests`, { json: { sessions: [sessionBody] }, token }))
    .body;
  await http('POST', `${ext}/payment-sessions/requests`, {
    json: { sessions: [{ agreement_id: 'agr_000000000000000000', amount_reference: 1 }] },
    token,
  }); // 404
  await http('GET', `${ext}/payment-sessions/requests/${batch.batch_id}`, { token });
  await http('GET', `${ext}/payment-sessions/requests/bat_000000000000000000`, { token }); // 404
  await http('GET', `${ext}/payment-sessions/${session.session_id}`, { token });
  await http('GET', `/payment-sessions/${session.session_id}`, { token });
  for (const path of [`${ext}/payment-sessions/ses_000000000000000000`, '/payment-sessions/ses_000000000000000000'])
    await http('GET', path, { token }); // 404
  await http('POST', `/control/sessions/${session.session_id}/outcome`, {
    json: { leg: 2, outcome: 'accredited' },
    token,
  }); // 500: not paid
  await http('POST', '/control/sessions/ses_000000000000000000/outcome', { json: { leg: 1, outcome: 'paid' }, token }); // 404
  for (const prefix of ['/control', '/__test__'])
    await http('POST', `${prefix}/sessions/${session.session_id}/outcome`, {
      json: { leg: 1, outcome: 'failed' },
      token,
    });
  await http('POST', `/__test__/sessions/${session.session_id}/outcome`, {
    json: { leg: 2, outcome: 'accredited' },
    token,
  }); // 500 via the alias
  await http('POST', '/__test__/sessions/ses_000000000000000000/outcome', { json: { leg: 1, outcome: 'paid' }, token }); // 404 via the alias
  await http('POST', `/control/sessions/${session.session_id}/outcome`, { json: { leg: 1, outcome: 'paid' }, token });
  await http('POST', `/control/sessions/${session.session_id}/outcome`, {
    json: { leg: 2, outcome: 'accredited' },
    token,
  });
  await http('POST', `${ext}/payment-sessions/${session.session_id}/expire`, { token }); // 422: paid
  await http('POST', `${ext}/payment-sessions/${batch.sessions[0].session_id}/expire`, { token });
  await http('POST', `${ext}/payment-sessions/ses_000000000000000000/expire`, { token }); // 404

  // Stops.
  const stop = (await http('POST', `${ext}/stops`, { json: { name: 'contract stop' }, token })).body;
  const second = (await http('POST', `${ext}/stops`, { json: { name: 'second stop', position: 1 }, token })).body;
  await http('GET', `${ext}/stops`, { token });
  await http('GET', `${ext}/stops/${stop.stop_id}`, { token });
  await http('GET', `${ext}/stops/stp_000000000000000000`, { token }); // 404
  await http('POST', `${ext}/stops/reorder`, { json: { stop_ids: [stop.stop_id, second.stop_id] }, token });
  await http('POST', `${ext}/stops/reorder`, { json: { stop_ids: ['stp_000000000000000000'] }, token }); // 404
  const item = { agreement_id: agreement.agreement_id, amount_reference: 3 };
  await http('POST', `${ext}/stops/${stop.stop_id}/sessions`, {
    json: { sessions: [item], continue_on_error: false },
    token,
  }); // 201
  await http('POST', `${ext}/stops/${stop.stop_id}/sessions`, {
    json: { sessions: [item, { ...item, amount_reference: -1 }], continue_on_error: true },
    token,
  }); // 207
  await http('POST', `${ext}/stops/${stop.stop_id}/sessions`, {
    json: { sessions: [item, { ...item, amount_reference: -1 }] },
    token,
  }); // 400
  await http('POST', `${ext}/stops/stp_000000000000000000/sessions`, { json: { sessions: [item] }, token }); // 404
  await http('PUT', `${ext}/stops/${stop.stop_id}`, { json: { name: 'ignored' }, token });
  await http('GET', `${ext}/stops/${stop.stop_id}/history`, { token });
  await http('POST', `${ext}/stops/query`, { json: {}, token });
  await http('DELETE', `${ext}/stops/${second.stop_id}`, { token });
  await http('DELETE', `${ext}/stops/stp_000000000000000000`, { token }); // 404

  // The payment page.
  const payable = (
    await http('POST', `${ext}/payment-sessions/buttons`, {
      json: { agreement_id: agreement.agreement_id, amount_reference: 7 },
      token,
    })
  ).body;
  await http('GET', `/pay/${payable.session_id}`);
  await http('GET', '/pay/ses_000000000000000000'); // 404
  await http('POST', `/pay/${payable.session_id}`, { json: { method: 'transfer', payment_key: '000000' } }); // 400: fields missing
  await http('POST', `/pay/${payable.session_id}`, {
    json: { method: 'transfer', bank: 'B', account_number: '1', payment_key: '000000' },
  });
  await http('POST', `/pay/${payable.session_id}`, {
    json: { method: 'transfer', bank: 'B', account_number: '1', payment_key: '000000' },
  }); // 409
  await http('POST', '/pay/ses_000000000000000000', { json: { method: 'transfer', payment_key: '000000' } }); // 404

  // Webhooks: receivers, the captura payloads, resend, the relay.
  const hooks = `/console/hooks/${registered.account_id}`;
  for (const receiver of ['paid', 'accredited', 'fail', 'captura']) {
    await http('POST', `${hooks}/${receiver}`, { json: {} }); // 200; fail 500 on purpose
    await http('POST', `/console/hooks/acc_000000000000000000/${receiver}`, {
      raw: 'x',
      headers: { 'content-type': 'text/plain' },
    }); // 404
    await http('POST', `${hooks}/${receiver}`, {
      raw: 'x'.repeat(1024 * 1024 + 1),
      headers: { 'content-type': 'text/plain' },
    }); // 413
  }
  for (let i = 0; i < 50; i += 1) {
    const received =
      (await http('GET', '/console/trace?type=webhook.received&limit=1000', { token: consoleToken })).body?.data ?? [];
    // The suite's own posts to the receivers carry no event_id.
    const captured = received.filter(
      (entry: { receiver: string; event_id?: string }) => entry.receiver === 'captura' && entry.event_id,
    );
    if (captured.length >= 4) {
      for (const entry of captured) checkPayload(ctx, entry.raw_body, 'captura');
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const emitted = (await http('GET', '/console/trace?type=webhook.emitted&limit=1', { token: consoleToken })).body
    .data[0];
  await http('POST', `/console/webhooks/${emitted.event_id}/resend`, { token: consoleToken });
  await http('POST', '/console/webhooks/evt_000000000000000000/resend', { token: consoleToken }); // 404
  if (ctx.profile === 'strict') {
    // Ours alone: a resend to another receiver, and resending every given-up event.
    await http('POST', `/console/webhooks/${emitted.event_id}/resend`, {
      json: { url: `${ctx.baseUrl}${hooks}/captura` },
      token: consoleToken,
    });
    await http('GET', '/console/relay', { token: consoleToken });
    await http('GET', '/console/relay'); // 401
    await http('GET', '/console/webhooks/failed', { token: consoleToken });
    await http('GET', `/console/webhooks/failed?session_id=${'s'.repeat(65)}`, { token: consoleToken }); // 400
    await http('POST', '/console/webhooks/resend-failed', { token: consoleToken });
  }
  await relayScenario(ctx, token, agreement.agreement_id);

  // Console.
  await http('GET', `/console/trace?session_id=${session.session_id}&limit=5`, { token: consoleToken });
  await http('GET', '/console/trace?limit=0', { token: consoleToken }); // 400
  await http('GET', '/console/sessions', { token: consoleToken });
  await http('GET', '/console/sessions?limit=5&page=2', { token: consoleToken });
  await http('GET', '/console/sessions?status=paid', { token: consoleToken });
  const { cursor } = (await http('GET', '/console/trace?limit=1', { token: consoleToken })).body ?? {};
  if (cursor) await http('GET', `/console/trace?after=${cursor}`, { token: consoleToken });
  await http('GET', '/console/trace/stream?max_seconds=1', { token: consoleToken });
  await http('GET', '/console/trace/stream?max_seconds=0', { token: consoleToken }); // 400
  await http('GET', '/console/sessions?page=0', { token: consoleToken }); // 400
  await http('GET', '/console/progress', { token: consoleToken });
  await http('GET', '/', { headers: { accept: 'text/html' } });
  await http('GET', '/favicon.ico');
  await http('GET', '/fidelidad', { headers: { accept: 'text/html' } });

  return {
    token,
    consoleToken,
    accountId: registered.account_id,
    merchantId: registered.merchant_id,
    email,
    password,
    hooks: registered.hooks,
    serial,
    secret,
    pos,
    sessionId: session.session_id,
    agreementId: agreement.agreement_id,
    stopId: stop.stop_id,
    batchId: batch.batch_id,
    eventId: emitted.event_id,
  };
}

/** Opens the relay (101), receives deliveries for a local URL, checks their payloads, and answers 200. */
async function relayScenario(ctx: ScenarioContext, token: string, agreementId: string): Promise<void> {
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
