import { PosClient } from '../clients/pos-client.js';
import { recordingFetch } from './suite-client.js';
import { checkPayload, relayScenario } from './relay-scenario.js';
import type { ScenarioContext, World } from './scenario-context.js';
import { checkRegistration } from './checks/fixtures.js';
export type { ScenarioContext, World } from './scenario-context.js';

const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;

/** Builds a world through the API, exercising every operation's success and its specific answers on the way. */
export async function mutatingScenarios(ctx: ScenarioContext): Promise<World> {
  const { http } = ctx;
  const email = `contract-${unique()}@example.com`;
  const password = 'contract suite password';

  // Accounts (INTERFACE.md §1).
  const registered = (
    await http('POST', '/console/register', { json: { email, password, short_name: `c${unique()}` } })
  ).body;
  checkRegistration(registered);
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
  for (const path of ['/health', '/openapi.json', '/fidelidad', '/console', '/console/app.js', '/pay/app.js'])
    await http('GET', path);
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
