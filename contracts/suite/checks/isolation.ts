import type { Check, CheckContext } from './check.js';
import {
  createAgreement,
  createOrder,
  createPartner,
  createSession,
  need,
  provisionTerminal,
  registerAccount,
  traceOf,
  waitFor,
  type SuiteAccount,
} from './fixtures.js';

// Another account's ids answer 404 NOT_FOUND, in paths and in bodies, never
// 403, so the two cannot be told apart (INTERFACE.md §0, §1).

/** Another account with one of everything: a terminal and its order, an agreement, a partner, a session, a stop, a batch, an event. */
async function theirThings(ctx: CheckContext) {
  const { http } = ctx;
  const theirs = await registerAccount(http);
  const theirTerminal = await provisionTerminal(http, theirs);
  const theirOrder = await createOrder(http, theirs, theirTerminal);
  const theirAgreement = await createAgreement(http, theirs);
  const theirPartner = await createPartner(http, theirs);
  const theirSession = (
    await createSession(http, theirs, {
      agreement_id: theirAgreement,
      amount_reference: 5,
      webhook_url: theirs.hooks.captura,
    })
  ).session_id as string;
  const theirStop = need(
    await http('POST', '/api/v1/ext/stops', { json: { name: 'theirs' }, token: theirs.token }),
    201,
    'creating a stop',
  ).stop_id as string;
  const theirBatch = need(
    await http('POST', '/api/v1/ext/payment-sessions/requests', {
      json: { sessions: [{ agreement_id: theirAgreement, amount_reference: 2 }] },
      token: theirs.token,
    }),
    201,
    'creating a request batch',
  ).batch_id as string;
  const theirEvent = await waitFor(
    async () => (await traceOf(http, theirs, 'webhook.emitted'))[0]?.event_id as string | undefined,
    ctx.settleMs,
  );
  return {
    theirs,
    theirTerminal,
    theirOrder,
    theirAgreement,
    theirPartner,
    theirSession,
    theirStop,
    theirBatch,
    theirEvent,
  };
}

/** Each request of `mine` that names something of theirs: method, path, and body. */
async function probesOf(ctx: CheckContext, mine: SuiteAccount, their: Awaited<ReturnType<typeof theirThings>>) {
  const { http } = ctx;
  const { theirs, theirTerminal, theirOrder, theirAgreement, theirPartner, theirSession, theirStop, theirBatch } =
    their;
  const myAgreement = await createAgreement(http, mine, { split: true });
  const e = (id: string) => encodeURIComponent(id);
  const probes: Array<[string, string, unknown?]> = [
    ['GET', `/api/v1/merchants/${e(theirs.merchantId)}/transactions`],
    ['GET', `/api/v1/merchants/${e(theirs.merchantId)}/pos-terminals`],
    ['GET', `${mine.merchant}/transactions/${e(theirOrder)}`],
    ['POST', `${mine.merchant}/transactions/${e(theirOrder)}/invalidation`],
    ['GET', `${mine.merchant}/pos-terminals/${e(theirTerminal.serial)}/settlements`],
    ['POST', `${mine.merchant}/pos-terminals/${e(theirTerminal.serial)}/secret`],
    ['POST', `${mine.merchant}/transactions`, { terminal: theirTerminal.serial, amount: 1, currency: 'USD' }],
    ['GET', `/api/v1/ext/payment-sessions/${e(theirSession)}`],
    ['GET', `/payment-sessions/${e(theirSession)}`],
    ['POST', `/api/v1/ext/payment-sessions/${e(theirSession)}/expire`],
    ['POST', `/control/sessions/${e(theirSession)}/outcome`, { leg: 1, outcome: 'paid' }],
    ['GET', `/api/v1/ext/payment-sessions/requests/${e(theirBatch)}`],
    ['GET', `/api/v1/ext/stops/${e(theirStop)}`],
    ['DELETE', `/api/v1/ext/stops/${e(theirStop)}`],
    [
      'POST',
      `/api/v1/ext/stops/${e(theirStop)}/sessions`,
      { sessions: [{ agreement_id: myAgreement, amount_reference: 1 }], continue_on_error: false },
    ],
    ['POST', '/api/v1/ext/stops/reorder', { stop_ids: [theirStop] }],
    ['POST', '/api/v1/ext/payment-sessions/buttons', { agreement_id: theirAgreement, amount_reference: 1 }],
    [
      'POST',
      '/api/v1/ext/payment-sessions/requests',
      { sessions: [{ agreement_id: theirAgreement, amount_reference: 1 }] },
    ],
    ['POST', '/api/v1/ext/split-agreements', { agreement_id: myAgreement, partner_id: theirPartner }],
    [
      'POST',
      '/api/v1/ext/split-agreements',
      { agreement_id: theirAgreement, partner_id: await createPartner(http, mine) },
    ],
    [
      'POST',
      '/api/v1/ext/payment-sessions/buttons',
      {
        agreement_id: myAgreement,
        amount_reference: 10,
        split: { distribution: [{ partner_id: theirPartner, amount_reference: 1 }] },
      },
    ],
  ];
  return probes;
}

async function otherAccount(ctx: CheckContext): Promise<void> {
  const { http, expect } = ctx;
  const mine = await registerAccount(http);
  const their = await theirThings(ctx);
  const { theirs, theirOrder, theirEvent } = their;
  const myTerminal = await provisionTerminal(http, mine);
  const e = (id: string) => encodeURIComponent(id);
  const probes = await probesOf(ctx, mine, their);
  for (const [method, path, json] of probes)
    expect.status(
      await http(method, path, { token: mine.token, ...(json === undefined ? {} : { json }) }),
      404,
      'NOT_FOUND',
    );
  if (theirEvent)
    expect.status(
      await http('POST', `/console/webhooks/${e(theirEvent)}/resend`, { token: mine.consoleToken }),
      404,
      'NOT_FOUND',
    );
  else expect.fail(null, '', 'a webhook.emitted entry for the session created', 'none in the trace');
  // Their order, committed by my terminal (a signed request): their order is not mine to touch.
  expect.status(
    await myTerminal.send(
      'POST',
      `/api/v1/pos-terminals/${e(myTerminal.serial)}/transactions/${e(theirOrder)}/commit`,
      { authorizationCode: 'X1', paidAt: new Date().toISOString() },
    ),
    404,
    'NOT_FOUND',
  );
  // And nothing of theirs moved.
  const order = await http('GET', `${theirs.merchant}/transactions/${e(theirOrder)}`, { token: theirs.token });
  if (expect.status(order, 200))
    expect.equal(order, '/data/status', 'PENDING', "another account's requests changed nothing");
}

export const isolationChecks: Check[] = [
  {
    id: 'isolation.other-account',
    decisions: ['answer-bodies'],
    title: "another account's ids, in paths and in bodies, answer 404 NOT_FOUND and change nothing",
    source: 'INTERFACE.md §0, §1',
    operations: [
      'listMerchantOrders',
      'listTerminals',
      'getOrder',
      'invalidateOrder',
      'listSettlements',
      'rotateTerminalSecret',
      'createOrder',
      'getPaymentSession',
      'readPaymentSession',
      'expirePaymentSession',
      'forceSessionOutcome',
      'getRequestBatch',
      'getStop',
      'deleteStop',
      'addStopSessions',
      'reorderStops',
      'createButtonSession',
      'createRequestBatch',
      'createSplitAgreement',
      'resendWebhook',
      'commitOrderPayment',
    ],
    run: otherAccount,
  },
];
