import type { SuiteResponse } from '../suite-client.js';
import type { Check, CheckContext } from './check.js';
import {
  ANY_2XX,
  createAgreement,
  createSession,
  forceOutcome,
  need,
  readSession,
  registerAccount,
} from './fixtures.js';
import { paymentPage } from './payment-page.js';
import { expire, dueDates } from './session-expiry.js';
import { split, commission } from './split.js';
import { creation } from './session-creation.js';

// Payment sessions (INTERFACE.md §5, §6, §8).

/** Forced outcomes: [status before, leg, outcome, answer status, status after]. */
export const outcomeTable: ReadonlyArray<[string, 1 | 2, string, number, string]> = [
  ['pending', 2, 'accredited', 500, 'pending'],
  ['pending', 2, 'accreditation_failed', 500, 'pending'],
  ['pending', 1, 'failed', 200, 'failed'],
  ['pending', 1, 'expired', 200, 'expired'],
  ['pending', 1, 'paid', 200, 'paid'],
  ['failed', 1, 'paid', 200, 'paid'],
  ['expired', 1, 'paid', 200, 'paid'],
  ['failed', 2, 'accredited', 500, 'failed'],
  ['paid', 1, 'failed', 500, 'paid'],
  ['paid', 1, 'expired', 500, 'paid'],
  ['paid', 1, 'paid', 500, 'paid'],
  ['paid', 2, 'accredited', 200, 'paid'],
  ['paid', 2, 'accreditation_failed', 200, 'paid'],
];

async function outcomes(ctx: CheckContext): Promise<void> {
  const { http, expect } = ctx;
  const account = await registerAccount(http);
  const agreement = await createAgreement(http, account);
  const sessionIn = async (status: string) => {
    const id = (await createSession(http, account, { agreement_id: agreement, amount_reference: 3 }))
      .session_id as string;
    if (status !== 'pending')
      need(await forceOutcome(http, account, id, 1, status), ANY_2XX, `forcing leg 1 ${status}`);
    return id;
  };
  for (const [before, leg, outcome, status, after] of outcomeTable) {
    const id = await sessionIn(before);
    const answer = await forceOutcome(http, account, id, leg, outcome);
    // An admitted outcome: any 2xx (open choice success-status); a refused one: exactly 500 INVALID_FORCED_TRANSITION.
    const held =
      status === 200
        ? expect.success(answer, `a 2xx: leg ${leg} ${outcome} admitted from ${before}`)
        : expect.status(answer, status, 'INVALID_FORCED_TRANSITION');
    if (held && status === 500)
      expect.that(
        typeof answer.body?.message === 'string' && answer.body.message.length > 0,
        answer,
        '/message',
        'the reason',
        answer.body?.message,
      );
    expect.equal(await readSession(http, account, id), '/status', after, `after leg ${leg} ${outcome} from ${before}`);
  }
  // Leg 2 once accreditation has ended is no longer admitted.
  const accredited = await sessionIn('paid');
  need(await forceOutcome(http, account, accredited, 2, 'accredited'), ANY_2XX, 'forcing leg 2 accredited');
  expect.equal(await readSession(http, account, accredited), '/accreditation/status', 'accredited');
  expect.status(
    await forceOutcome(http, account, accredited, 2, 'accreditation_failed'),
    500,
    'INVALID_FORCED_TRANSITION',
  );
  // A malformed body is a 400, whatever the session's state: an unknown outcome, a leg that does not exist, a missing leg.
  const pending = await sessionIn('pending');
  for (const body of [{ leg: 1, outcome: 'refunded' }, { leg: 3, outcome: 'paid' }, { outcome: 'paid' }, { leg: 1 }]) {
    expect.status(
      await http('POST', `/control/sessions/${pending}/outcome`, { json: body, token: account.token }),
      400,
      'VALIDATION_FAILED',
    );
  }
  expect.status(
    await http('POST', `/__test__/sessions/${pending}/outcome`, {
      json: { leg: 2, outcome: 'accredited' },
      token: account.token,
    }),
    500,
    'INVALID_FORCED_TRANSITION',
  );
}

/** The console's view of a session offers exactly the forced outcomes forcing admits (ours: the console keeps no copy of the rules). */
async function consoleView(ctx: CheckContext): Promise<void> {
  const { http, expect } = ctx;
  const account = await registerAccount(http);
  const agreement = await createAgreement(http, account);
  const view = (id: string, token = account.consoleToken) => http('GET', `/console/sessions/${id}`, { token });
  const shown = (answer: SuiteResponse) =>
    ((answer.body?.admissible_outcomes ?? []) as Array<{ leg: number; outcome: string }>)
      .map(({ leg, outcome }) => `${leg}:${outcome}`)
      .sort();
  for (const before of ['pending', 'failed', 'expired', 'paid']) {
    const id = (await createSession(http, account, { agreement_id: agreement, amount_reference: 4 }))
      .session_id as string;
    if (before !== 'pending')
      need(await forceOutcome(http, account, id, 1, before), ANY_2XX, `forcing leg 1 ${before}`);
    const answer = await view(id);
    if (!expect.status(answer, 200)) continue;
    expect.equal(answer, '/session/status', before);
    // Every row of the outcome table from this state: offered exactly when forcing admits it.
    for (const [from, leg, outcome, status] of outcomeTable.filter(([from]) => from === before)) {
      const offered = shown(answer).includes(`${leg}:${outcome}`);
      expect.that(
        offered === (status === 200),
        answer,
        '/admissible_outcomes',
        `leg ${leg} ${outcome} from ${from} ${status === 200 ? 'offered' : 'not offered'}, as forcing ${status === 200 ? 'admits' : 'refuses'} it`,
        shown(answer).join(', '),
      );
    }
    if (before !== 'paid') continue;
    need(await forceOutcome(http, account, id, 2, 'accredited'), ANY_2XX, 'forcing leg 2 accredited');
    const ended = await view(id);
    if (expect.status(ended, 200))
      expect.that(
        shown(ended).length === 0,
        ended,
        '/admissible_outcomes',
        'none once the accreditation ended',
        shown(ended).join(', '),
      );
  }
  expect.status(await view('ses_no_such_session'), 404, 'NOT_FOUND');
  const other = await registerAccount(http);
  const theirs = (
    await createSession(http, other, { agreement_id: await createAgreement(http, other), amount_reference: 1 })
  ).session_id as string;
  expect.status(await view(theirs), 404, 'NOT_FOUND');
}
export const sessionChecks: Check[] = [
  {
    id: 'sessions.create',
    decisions: ['other-currency', 'answer-bodies'],
    title:
      'a session as created and read; amounts > 0 with at most 2 decimals, the behaviour, the currency; the Request batch all or nothing',
    source: 'INTERFACE.md §5 (session create, Request batch)',
    operations: [
      'createButtonSession',
      'readPaymentSession',
      'createRequestBatch',
      'getRequestBatch',
      'getConsoleSessions',
    ],
    run: creation,
  },
  {
    id: 'sessions.split',
    decisions: ['success-status'],
    title:
      'a split partner must be linked on a split agreement (400), exist in the account (404), and the shares fit the amount',
    source: 'INTERFACE.md §5 (split)',
    operations: ['createSplitAgreement', 'createButtonSession'],
    run: split,
  },
  {
    id: 'sessions.commission',
    decisions: ['success-status'],
    title: 'one credit per receiver, 1 % commission each rounded half-up to the cent, the summary',
    source: 'INTERFACE.md §5 (accreditation)',
    operations: ['forceSessionOutcome', 'getPaymentSession', 'readPaymentSession'],
    run: commission,
  },
  {
    id: 'sessions.outcomes',
    decisions: ['success-status'],
    title:
      'forced outcomes: admitted from the states INTERFACE.md names, 500 INVALID_FORCED_TRANSITION otherwise, 400 for a malformed body',
    source: 'INTERFACE.md §5, §6',
    operations: ['forceSessionOutcome', 'getPaymentSession'],
    run: outcomes,
  },
  {
    id: 'sessions.console-view',
    strictOnly: true,
    title:
      "the console's view of a session offers exactly the forced outcomes forcing admits; another account's session is 404",
    source: 'ours: the console takes its rules from the server (INTERFACE.md §6 for the rules)',
    operations: ['getConsoleSession', 'forceSessionOutcome'],
    run: consoleView,
  },
  {
    id: 'sessions.expire',
    decisions: ['success-status', 'answer-bodies'],
    title: 'expire: pending and failed → expired, expired unchanged, paid 422 SESSION_ALREADY_PAID',
    source: 'INTERFACE.md §5 (expire)',
    operations: ['expirePaymentSession', 'getPaymentSession'],
    run: expire,
  },
  {
    id: 'sessions.due-dates',
    decisions: ['past-due-date', 'success-status'],
    title: "due dates on the account's clock: expire and keep_active, a past due date expired on the first read",
    source: 'INTERFACE.md §6 (clock)',
    operations: ['createButtonSession', 'getPaymentSession', 'advanceControlClock', 'getControlClock'],
    run: dueDates,
  },
  {
    id: 'sessions.payment-page',
    decisions: ['success-status'],
    title: "the payment page: the agreement's methods only, magic keys, and the leg-2 choice of the form honoured",
    source: 'INTERFACE.md §8 (payment page)',
    operations: ['showPaymentPage', 'payPaymentPage', 'getPaymentSession'],
    run: paymentPage,
  },
];
