import type { Check, CheckContext } from './check.js';
import {
  ANY_2XX,
  advanceClock,
  createAgreement,
  createSession,
  forceOutcome,
  need,
  registerAccount,
  waitFor,
  type SuiteAccount,
} from './fixtures.js';
import type { JsonAnswer } from '../../json-answer.js';
import { header, checkDelivery, fromTrace, eventOf, received, emitted } from './deliveries.js';

import { relay, relayRules } from './relay.js';
import { events } from './webhook-events.js';
import { retries } from './webhook-retries.js';

// Webhooks (INTERFACE.md §7):
// checked where they arrive, at the account's own receivers
// (the trace records what they got, byte for byte) and through the relay.

async function captura(ctx: CheckContext): Promise<void> {
  const { http, expect } = ctx;
  const account = await registerAccount(http);
  const agreement = await createAgreement(http, account);
  const session = (
    await createSession(http, account, {
      agreement_id: agreement,
      amount_reference: 9,
      webhook_url: account.hooks.captura,
    })
  ).session_id as string;
  need(await forceOutcome(http, account, session, 1, 'paid'), ANY_2XX, 'forcing leg 1 paid');
  need(await forceOutcome(http, account, session, 2, 'accredited'), ANY_2XX, 'forcing leg 2 accredited');
  const entries = await waitFor(async () => {
    const got = await received(ctx, account, session);
    return got.length >= 3 ? got : undefined;
  }, ctx.settleMs);
  if (!entries)
    return void expect.fail(
      null,
      '',
      'three deliveries (created, paid, accredited) at the captura receiver',
      `${(await received(ctx, account, session)).length}`,
    );
  const events = entries.map((e) => (JSON.parse(String(e.raw_body)) as { event: string }).event);
  expect.that(
    JSON.stringify(events) ===
      JSON.stringify(['payment_session.created', 'payment_session.paid', 'payment_session.accredited']),
    null,
    '',
    'created, paid, accredited, in that order (events of one session in temporal order)',
    events.join(', '),
  );
  for (const entry of entries) {
    const delivery = fromTrace(entry);
    const body = JSON.parse(delivery.body) as { event: string; created_at: string; data?: Record<string, JsonAnswer> };
    checkDelivery(expect, delivery, account.webhookSecret, body.event);
    expect.that(
      header(delivery, 'svc-timestamp') === body.created_at,
      null,
      'header:svc-timestamp',
      `${body.event}: the event's created_at (${body.created_at})`,
      header(delivery, 'svc-timestamp') ?? 'none',
    );
    expect.that(
      body.data?.session_id === session,
      null,
      '/data/session_id',
      `${body.event}: ${session}`,
      body.data?.session_id,
    );
    if (body.event === 'payment_session.accredited')
      expect.that(
        Array.isArray(body.data?.receiver_credits) && typeof body.data?.receiver_credits_summary === 'object',
        null,
        '/data',
        'receiver_credits and receiver_credits_summary beside session_payment',
        Object.keys(body.data ?? {}).join(', '),
      );
  }
  const keys = new Set(entries.map((e) => header(fromTrace(e), 'idempotency-key')));
  expect.that(
    keys.size === 3,
    null,
    'header:idempotency-key',
    'one key per emission (three different)',
    [...keys].join(', '),
  );
  await manualResend(ctx, account, session, entries);
}

/** A manual resend: the same key, a fresh timestamp and a signature over it. */
async function manualResend(
  ctx: CheckContext,
  account: SuiteAccount,
  session: string,
  entries: Awaited<ReturnType<typeof received>>,
): Promise<void> {
  const { http, expect } = ctx;
  const created = (await emitted(ctx, account, session))[0];
  if (!created?.event_id) return void expect.fail(null, '', 'a webhook.emitted entry for the session', 'none');
  const first = entries.find((e) => eventOf(e) === created.event_id) ?? entries[0]!;
  await advanceClock(http, account, 1500);
  const resend = await http('POST', `/console/webhooks/${created.event_id}/resend`, { token: account.consoleToken });
  const cited = expect.citing('INTERFACE.md §7 (manual resend)');
  // INTERFACE.md fixes what a resend sends, not its own status: any 2xx.
  if (!cited.that(resend.status >= 200 && resend.status < 300, resend, '', 'a 2xx', `${resend.status}`)) return;
  const again = await waitFor(async () => {
    const got = (await received(ctx, account, session)).filter((e) => eventOf(e) === created.event_id);
    return got.length >= 2 ? got[got.length - 1] : undefined;
  }, ctx.settleMs);
  if (!again) return void cited.fail(resend, '', 'the resent delivery at the receiver', 'none');
  const resent = fromTrace(again);
  checkDelivery(cited, resent, account.webhookSecret, 'resend');
  cited.that(
    header(resent, 'idempotency-key') === header(fromTrace(first), 'idempotency-key'),
    resend,
    'header:idempotency-key',
    `the emission's key ${header(fromTrace(first), 'idempotency-key')}`,
    header(resent, 'idempotency-key') ?? 'none',
  );
  cited.that(
    header(resent, 'svc-timestamp') !== header(fromTrace(first), 'svc-timestamp'),
    resend,
    'header:svc-timestamp',
    'a fresh timestamp',
    header(resent, 'svc-timestamp') ?? 'none',
  );
  cited.that(resent.body === fromTrace(first).body, resend, '', 'the same body bytes', resent.body.slice(0, 80));
}

export const webhookChecks: Check[] = [
  {
    id: 'webhooks.captura',
    decisions: ['success-status', 'answer-bodies'],
    title:
      "deliveries at the captura receiver: signed over the exact bytes with the account's secret, svc-timestamp the event's created_at, a UUID v4 key per emission, a session's events in order; a manual resend keeps the key with a fresh timestamp",
    source: 'INTERFACE.md §7',
    operations: ['receiveCapturaWebhook', 'getConsoleTrace', 'resendWebhook', 'forceSessionOutcome'],
    run: captura,
  },
  {
    id: 'webhooks.retries',
    decisions: ['trace-time-basis', 'success-status'],
    title:
      "the retry ladder on the account's clock (0, 2000, 5000 ms from the end of the previous attempt), then given up; retries identical; a session's next event waits",
    source: 'INTERFACE.md §7',
    operations: ['receiveFailWebhook', 'getConsoleTrace', 'advanceControlClock', 'forceSessionOutcome'],
    run: retries,
  },
  {
    id: 'webhooks.relay',
    title:
      'deliveries through the relay: the exact signed bytes, and a retry after a local failure identical to the first',
    source: 'INTERFACE.md §7, §8 (relay)',
    operations: ['openRelay', 'createButtonSession', 'advanceControlClock'],
    run: relay,
  },
  {
    id: 'webhooks.events',
    decisions: ['success-status'],
    title:
      'which events each change emits: created, paid, accredited, one failed-credit event per failed credit; failed and expired none',
    source: 'INTERFACE.md §7, §6 (events)',
    operations: ['createButtonSession', 'forceSessionOutcome', 'getConsoleTrace'],
    run: events,
  },
  {
    id: 'webhooks.relay-rules',
    title:
      'a second relay for a key closes the first with 4000; the routing of each webhook_url (loopback, relay for local and private hosts and unparsable URLs)',
    source: 'INTERFACE.md §7, §8 (relay)',
    operations: ['openRelay', 'createButtonSession', 'getConsoleTrace'],
    run: relayRules,
  },
];
