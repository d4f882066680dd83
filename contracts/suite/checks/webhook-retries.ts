import type { CheckContext } from './check.js';
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
import { header, checkDelivery, fromTrace, eventOf, received, emitted } from './deliveries.js';

// The retry ladder (INTERFACE.md §7), judged at the account's "fail"
// receiver on the account's clock: attempts at 0, 2000 and 5000 ms from the
// end of the one before, then given up; every retry the same bytes and
// headers; a session's next event waiting for the one before it.

export async function retries(ctx: CheckContext): Promise<void> {
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
