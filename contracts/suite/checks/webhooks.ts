import type { Check, CheckContext } from './check.js';
import {
  ANY_2XX,
  accountNow,
  advanceClock,
  createAgreement,
  createSession,
  forceOutcome,
  need,
  registerAccount,
  traceOf,
  waitFor,
  type SuiteAccount,
} from './fixtures.js';
import type { JsonAnswer } from '../../json-answer.js';
import { header, checkDelivery, fromTrace, eventOf, received, emitted } from './deliveries.js';

import { relay, relayRules } from './relay.js';
import { events } from './webhook-events.js';

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

async function retries(ctx: CheckContext): Promise<void> {
  const { http, expect } = ctx;
  const account = await registerAccount(http);
  const agreement = await createAgreement(http, account);
  // Attempt 1 is made after this moment on the account's clock.
  const beforeSession = await accountNow(http, account);
  const session = (
    await createSession(http, account, {
      agreement_id: agreement,
      amount_reference: 9,
      webhook_url: account.hooks.fail,
    })
  ).session_id as string;
  // The account has this one session: every attempt is of its events.
  const attempts = () => traceOf(http, account, 'webhook.attempt');
  const created = (await emitted(ctx, account, session))[0]?.event_id as string | undefined;
  if (!created) return void expect.fail(null, '', 'a webhook.emitted entry for the session created', 'none');
  const ofCreated = async () => (await attempts()).filter((e) => e.event_id === created);
  const count = (n: number) => async () => ((await ofCreated()).length >= n ? true : undefined);
  if (!(await waitFor(count(1), ctx.settleMs)))
    return void expect.fail(null, '', 'attempt 1 at once (ladder step 0)', 'no attempt');
  // Leg 1 paid while the created event is still retrying: its event waits (events of one session in order).
  need(await forceOutcome(http, account, session, 1, 'paid'), ANY_2XX, 'forcing leg 1 paid');
  const paid = async () => (await attempts()).some((e) => e.event_id !== created) || undefined;
  const ladder = expect.citing('INTERFACE.md §7 (ladders, counted from the end of the previous attempt)');
  // The ladder is judged by what can be seen whatever clock the trace is stamped on (open choice trace-time-basis):
  // no retry while the account clock is short of the step, a retry once it has passed it. Bounds on the account
  // clock come from reading it (GET /control/clock) around what is counted, never from the trace's times.
  const moment = () => new Promise((resolve) => setTimeout(resolve, 300)); // for the deployment to act on a clock it was moved
  /** Moves the account clock to just short of `deadline`, and sees that no attempt `n` came: known only while the clock is still short of it. */
  const noAttemptBefore = async (deadline: number, n: number, what: string): Promise<number> => {
    const now = await accountNow(http, account);
    if (deadline - now > 800) await advanceClock(http, account, deadline - now - 700);
    await moment();
    const asOf = await accountNow(http, account);
    const seen = (await ofCreated()).length;
    if (asOf < deadline)
      ladder.that(
        seen < n,
        null,
        '',
        `no attempt ${n} while the account clock is short of ${what}`,
        `attempt ${n} made by ${deadline - asOf} ms before`,
      );
    return asOf; // attempt n, not made by now, starts after this
  };
  /** Moves the account clock past `due` and waits for attempt `n`; answers the clock once it is seen (attempt n ended by then). */
  const attemptAfter = async (due: number, n: number, what: string): Promise<number | undefined> => {
    const now = await accountNow(http, account);
    if (due - now > -300) await advanceClock(http, account, due - now + 300);
    if (!(await waitFor(count(n), ctx.settleMs)))
      return void ladder.fail(
        null,
        '',
        `attempt ${n} once the account clock passed ${what}`,
        `${(await ofCreated()).length} attempts`,
      );
    return accountNow(http, account);
  };
  const firstEnded = await accountNow(http, account);
  const secondAfter = await noAttemptBefore(beforeSession + 2000, 2, 'attempt 1 + 2000 ms');
  const secondEnded = await attemptAfter(firstEnded + 2000, 2, 'attempt 1 + 2000 ms');
  if (secondEnded === undefined) return;
  // Counted from the end of attempt 2, not from attempt 1.
  await noAttemptBefore(
    secondAfter + 5000,
    3,
    'attempt 2 + 5000 ms (counted from the end of attempt 2, not from attempt 1)',
  );
  if ((await attemptAfter(secondEnded + 5000, 3, 'attempt 2 + 5000 ms')) === undefined) return;
  const gaveUp = await waitFor(
    async () => (await traceOf(http, account, 'webhook.gave_up')).find((e) => e.event_id === created),
    ctx.settleMs,
  );
  ladder.that(Boolean(gaveUp), null, '', 'webhook.gave_up after the third attempt', 'none');
  ladder.that((await ofCreated()).length === 3, null, '', 'three attempts in all', `${(await ofCreated()).length}`);
  await paidWaited(ctx, created, attempts, ofCreated, paid);
  await retriesIdentical(ctx, account, session, created);
}

type TraceEntries = () => ReturnType<typeof traceOf>;

/** The session's paid event was attempted only once its created event was given up. */
async function paidWaited(
  ctx: CheckContext,
  created: string,
  attempts: TraceEntries,
  ofCreated: TraceEntries,
  paid: () => Promise<true | undefined>,
): Promise<void> {
  const order = ctx.expect.citing('INTERFACE.md §7 (events of one session delivered in order)');
  const paidAttempts = (await attempts()).filter((e) => e.event_id !== created);
  const createdEnd = (await ofCreated()).map((e) => Date.parse(e.at)).reduce((a, b) => Math.max(a, b), 0);
  order.that(
    paidAttempts.every((e) => Date.parse(e.at) >= createdEnd),
    null,
    '',
    'the paid event attempted only after the created event was given up',
    paidAttempts.map((e) => e.at).join(', '),
  );
  order.that(
    Boolean(await waitFor(paid, ctx.settleMs)),
    null,
    '',
    'the paid event attempted once the created one was given up',
    'not attempted',
  );
}

/** Every automatic retry: the same bytes, timestamp, signature and key (INTERFACE.md §7). */
async function retriesIdentical(
  ctx: CheckContext,
  account: SuiteAccount,
  session: string,
  created: string,
): Promise<void> {
  const got = (await received(ctx, account, session)).filter((e) => eventOf(e) === created).map(fromTrace);
  const same = ctx.expect.citing('INTERFACE.md §7');
  same.that(got.length === 3, null, '', 'the fail receiver got the three attempts', `${got.length}`);
  for (const [i, delivery] of got.entries()) {
    checkDelivery(same, delivery, account.webhookSecret, `attempt ${i + 1}`);
    if (i === 0) continue;
    for (const name of ['idempotency-key', 'svc-timestamp', 'svc-signature'])
      same.that(
        header(delivery, name) === header(got[0]!, name),
        null,
        `header:${name}`,
        `attempt ${i + 1}: ${name} of attempt 1 (${header(got[0]!, name)})`,
        header(delivery, name) ?? 'none',
      );
    same.that(
      delivery.body === got[0]!.body,
      null,
      '',
      `attempt ${i + 1}: the bytes of attempt 1`,
      delivery.body.slice(0, 80),
    );
  }
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
