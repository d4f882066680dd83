import type { SuiteResponse } from '../suite-client.js';
import type { Check, CheckContext } from './check.js';
import { ANY_2XX, accountNow, advanceClock, createAgreement, createPartner, createSession, forceOutcome, need, readSession, registerAccount, waitFor, type Account } from './fixtures.js';

// Payment sessions (spec: Payment session, simulator behaviour; addendum §5, §6, §8).

const cents = (n: unknown) => Math.round(Number(n) * 100);

async function split(ctx: CheckContext): Promise<void> {
  const { http, expect } = ctx;
  const account = await registerAccount(http);
  const splitAgreement = await createAgreement(http, account, { split: true });
  const plainAgreement = await createAgreement(http, account, { split: false });
  const linked = await createPartner(http, account);
  const unlinked = await createPartner(http, account);
  expect.status(await http('POST', '/api/v1/ext/split-agreements', { json: { agreement_id: splitAgreement, partner_id: linked }, token: account.token }), 201);
  const button = (agreement_id: string, partner_id: string, share = 5) => http('POST', '/api/v1/ext/payment-sessions/buttons', { json: { agreement_id, amount_reference: 20, split: { distribution: [{ partner_id, amount_reference: share }] } }, token: account.token });
  expect.status(await button(splitAgreement, linked), 201);
  expect.status(await button(splitAgreement, unlinked), 400);
  expect.status(await button(splitAgreement, linked, 25), 400); // more than the session's amount
  expect.status(await button(plainAgreement, unlinked), 201); // split false: accepted, the partner still validated…
  expect.status(await button(plainAgreement, 'ptn_unknown_partner_0'), 404, 'NOT_FOUND'); // …so an unknown one is 404
}

async function commission(ctx: CheckContext): Promise<void> {
  const { http, expect } = ctx;
  const account = await registerAccount(http);
  const agreement = await createAgreement(http, account, { split: true });
  const partner = await createPartner(http, account);
  need(await http('POST', '/api/v1/ext/split-agreements', { json: { agreement_id: agreement, partner_id: partner }, token: account.token }), 201, 'linking the partner');
  const session = await createSession(http, account, { agreement_id: agreement, amount_reference: 20, split: { distribution: [{ partner_id: partner, amount_reference: 5.55 }] } });
  need(await forceOutcome(http, account, session.session_id, 1, 'paid'), ANY_2XX, 'forcing leg 1 paid');
  need(await forceOutcome(http, account, session.session_id, 2, 'accredited'), ANY_2XX, 'forcing leg 2 accredited');
  for (const path of [`/api/v1/ext/payment-sessions/${session.session_id}`, `/payment-sessions/${session.session_id}`]) {
    const read = await http('GET', path, { token: account.token });
    if (!expect.status(read, 200)) continue;
    const credits = (read.body?.session_payment?.receiver_credits ?? []) as Array<Record<string, unknown>>;
    const owner = credits.find((c) => c.receiver_type === 'owner');
    const theirs = credits.find((c) => c.receiver_type === 'partner');
    // 1 % of each credit, rounded half-up to the cent: 5.55 → 0.06 (0.0555), 14.45 → 0.14 (0.1445).
    const shape = (c: Record<string, unknown> | undefined) => c && [cents(c.gross_amount), cents(c.commission), cents(c.net_amount)];
    expect.that(JSON.stringify(shape(theirs)) === JSON.stringify([555, 6, 549]), read, '/session_payment/receiver_credits', 'the partner\'s credit: gross 5.55, commission 0.06, net 5.49', theirs ?? 'none');
    expect.that(JSON.stringify(shape(owner)) === JSON.stringify([1445, 14, 1431]), read, '/session_payment/receiver_credits', 'the owner\'s credit: gross 14.45, commission 0.14, net 14.31', owner ?? 'none');
    const summary = read.body?.session_payment?.receiver_credits_summary ?? {};
    expect.that(cents(summary.gross_amount) === 2000 && cents(summary.commissions) === 20 && cents(summary.net_amount) === 1980 && summary.total_credits === 2, read, '/session_payment/receiver_credits_summary', 'gross 20, commissions 0.20, net 19.80, total_credits 2', summary);
  }
}

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
    const id = (await createSession(http, account, { agreement_id: agreement, amount_reference: 3 })).session_id as string;
    if (status !== 'pending') need(await forceOutcome(http, account, id, 1, status), ANY_2XX, `forcing leg 1 ${status}`);
    return id;
  };
  for (const [before, leg, outcome, status, after] of outcomeTable) {
    const id = await sessionIn(before);
    const answer = await forceOutcome(http, account, id, leg, outcome);
    // An admitted outcome: any 2xx (open choice success-status); a refused one: exactly 500 INVALID_FORCED_TRANSITION.
    const held = status === 200 ? expect.success(answer, `a 2xx: leg ${leg} ${outcome} admitted from ${before}`) : expect.status(answer, status, 'INVALID_FORCED_TRANSITION');
    if (held && status === 500) expect.that(typeof answer.body?.message === 'string' && answer.body.message.length > 0, answer, '/message', 'the reason', answer.body?.message);
    expect.equal(await readSession(http, account, id), '/status', after, `after leg ${leg} ${outcome} from ${before}`);
  }
  // Leg 2 once accreditation has ended is no longer admitted.
  const accredited = await sessionIn('paid');
  need(await forceOutcome(http, account, accredited, 2, 'accredited'), ANY_2XX, 'forcing leg 2 accredited');
  expect.equal(await readSession(http, account, accredited), '/accreditation/status', 'accredited');
  expect.status(await forceOutcome(http, account, accredited, 2, 'accreditation_failed'), 500, 'INVALID_FORCED_TRANSITION');
  // A malformed body is a 400, whatever the session's state: an unknown outcome, a leg that does not exist, a missing leg.
  const pending = await sessionIn('pending');
  for (const body of [{ leg: 1, outcome: 'refunded' }, { leg: 3, outcome: 'paid' }, { outcome: 'paid' }, { leg: 1 }]) {
    expect.status(await http('POST', `/control/sessions/${pending}/outcome`, { json: body, token: account.token }), 400, 'VALIDATION_FAILED');
  }
  expect.status(await http('POST', `/__test__/sessions/${pending}/outcome`, { json: { leg: 2, outcome: 'accredited' }, token: account.token }), 500, 'INVALID_FORCED_TRANSITION');
}

/** The console's view of a session offers exactly the forced outcomes forcing admits (ours: the console keeps no copy of the rules). */
async function consoleView(ctx: CheckContext): Promise<void> {
  const { http, expect } = ctx;
  const account = await registerAccount(http);
  const agreement = await createAgreement(http, account);
  const view = (id: string, token = account.consoleToken) => http('GET', `/console/sessions/${id}`, { token });
  const shown = (answer: SuiteResponse) => ((answer.body?.admissible_outcomes ?? []) as Array<{ leg: number; outcome: string }>).map(({ leg, outcome }) => `${leg}:${outcome}`).sort();
  for (const before of ['pending', 'failed', 'expired', 'paid']) {
    const id = (await createSession(http, account, { agreement_id: agreement, amount_reference: 4 })).session_id as string;
    if (before !== 'pending') need(await forceOutcome(http, account, id, 1, before), ANY_2XX, `forcing leg 1 ${before}`);
    const answer = await view(id);
    if (!expect.status(answer, 200)) continue;
    expect.equal(answer, '/session/status', before);
    // Every row of the outcome table from this state: offered exactly when forcing admits it.
    for (const [from, leg, outcome, status] of outcomeTable.filter(([from]) => from === before)) {
      const offered = shown(answer).includes(`${leg}:${outcome}`);
      expect.that(offered === (status === 200), answer, '/admissible_outcomes', `leg ${leg} ${outcome} from ${from} ${status === 200 ? 'offered' : 'not offered'}, as forcing ${status === 200 ? 'admits' : 'refuses'} it`, shown(answer).join(', '));
    }
    if (before !== 'paid') continue;
    need(await forceOutcome(http, account, id, 2, 'accredited'), ANY_2XX, 'forcing leg 2 accredited');
    const ended = await view(id);
    if (expect.status(ended, 200)) expect.that(shown(ended).length === 0, ended, '/admissible_outcomes', 'none once the accreditation ended', shown(ended).join(', '));
  }
  expect.status(await view('ses_no_such_session'), 404, 'NOT_FOUND');
  const other = await registerAccount(http);
  const theirs = (await createSession(http, other, { agreement_id: await createAgreement(http, other), amount_reference: 1 })).session_id as string;
  expect.status(await view(theirs), 404, 'NOT_FOUND');
}

async function expire(ctx: CheckContext): Promise<void> {
  const { http, expect } = ctx;
  const account = await registerAccount(http);
  const agreement = await createAgreement(http, account);
  const fresh = async () => (await createSession(http, account, { agreement_id: agreement, amount_reference: 4 })).session_id as string;
  const expireOf = (id: string) => http('POST', `/api/v1/ext/payment-sessions/${id}/expire`, { token: account.token });
  // The status is read back: the addendum does not fix what an expire answers beside its 200.
  const pending = await fresh();
  if (expect.status(await expireOf(pending), 200)) expect.equal(await readSession(http, account, pending), '/status', 'expired');
  if (expect.status(await expireOf(pending), 200)) expect.equal(await readSession(http, account, pending), '/status', 'expired', 'expiring an expired session: 200, unchanged');
  const failed = await fresh();
  need(await forceOutcome(http, account, failed, 1, 'failed'), ANY_2XX, 'forcing leg 1 failed');
  if (expect.status(await expireOf(failed), 200)) expect.equal(await readSession(http, account, failed), '/status', 'expired');
  const paid = await fresh();
  need(await forceOutcome(http, account, paid, 1, 'paid'), ANY_2XX, 'forcing leg 1 paid');
  expect.status(await expireOf(paid), 422, 'SESSION_ALREADY_PAID');
  expect.equal(await readSession(http, account, paid), '/status', 'paid', 'a refused expire changes nothing');
}

async function dueDates(ctx: CheckContext): Promise<void> {
  const { http, expect } = ctx;
  const account = await registerAccount(http);
  const agreement = await createAgreement(http, account);
  const now = await accountNow(http, account);
  const due = new Date(now + 60_000).toISOString();
  const expiring = (await createSession(http, account, { agreement_id: agreement, amount_reference: 2, due_date_session: due })).session_id as string;
  const kept = (await createSession(http, account, { agreement_id: agreement, amount_reference: 2, due_date_session: due, due_date_reached_behavior: 'keep_active' })).session_id as string;
  const past = await http('POST', '/api/v1/ext/payment-sessions/buttons', { json: { agreement_id: agreement, amount_reference: 2, due_date_session: new Date(now - 60_000).toISOString() }, token: account.token });
  // A due date already past: accepted and expired on the first read (ours), or refused (open choice past-due-date).
  const refusedPast = ctx.profile === 'interface' && past.status === 400;
  if (refusedPast) expect.status(past, 400, 'VALIDATION_FAILED');
  else if (expect.status(past, 201)) expect.equal(await readSession(http, account, past.body.session_id), '/status', 'expired', 'a due date in the past: expired on the first read');
  expect.equal(await readSession(http, account, expiring), '/status', 'pending', 'before its due date');
  await advanceClock(http, account, 61_000);
  expect.equal(await readSession(http, account, expiring), '/status', 'expired', 'after its due date on the account\'s clock (expire)');
  expect.equal(await readSession(http, account, kept), '/status', 'pending', 'after its due date on the account\'s clock (keep_active)');
}

const METHODS = ['card', 'transfer', 'mobile_payment', 'wallet'];

/**
 * The fields the page's form asks for a method, read from the page itself
 * (the addendum fixes method, payment_key and leg2, not the names of each
 * method's own fields): `transfer.bank` or a bare `bank`, never another
 * method's. Each gets digits, which every field of ours accepts.
 */
export function methodFields(page: string, method: string): Record<string, string> {
  const names = [...page.matchAll(/<(?:input|select|textarea)\b[^>]*\bname="([^"]+)"/g)].map((m) => m[1]!);
  const own = names.filter((name) => !['method', 'payment_key', 'leg2'].includes(name) && (name.startsWith(`${method}.`) || !METHODS.some((other) => name.startsWith(`${other}.`))));
  return Object.fromEntries((own.length > 0 ? own : ['bank', 'account_number']).map((name) => [name, '12345678']));
}

/** Pays through the payment page's form, with a leg-2 choice (absent: the default). */
async function payByForm(ctx: CheckContext, sessionId: string, fields: Record<string, string>): Promise<SuiteResponse> {
  const page = await ctx.http('GET', `/pay/${sessionId}`, { headers: { accept: 'text/html' } });
  const form = new URLSearchParams({ method: 'transfer', ...methodFields(page.text, 'transfer'), ...fields });
  return ctx.http('POST', `/pay/${sessionId}`, { raw: form.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' } });
}

async function accreditationOf(ctx: CheckContext, account: Account, sessionId: string): Promise<SuiteResponse | undefined> {
  return waitFor(async () => {
    const read = await readSession(ctx.http, account, sessionId);
    const status = read.body?.accreditation?.status;
    return status === 'accredited' || status === 'failed' ? read : undefined;
  }, ctx.settleMs);
}

async function paymentPage(ctx: CheckContext): Promise<void> {
  const { http, expect } = ctx;
  const account = await registerAccount(http);
  const agreement = await createAgreement(http, account, { methods: ['transfer'] });
  const failing = (await createSession(http, account, { agreement_id: agreement, amount_reference: 6 })).session_id as string;
  const succeeding = (await createSession(http, account, { agreement_id: agreement, amount_reference: 6 })).session_id as string;
  const refused = (await createSession(http, account, { agreement_id: agreement, amount_reference: 6 })).session_id as string;
  const page = await http('GET', `/pay/${failing}`, { headers: { accept: 'text/html' } });
  if (expect.status(page, 200)) expect.that(!/(value|name)="card[".]/.test(page.text) && /transfer/.test(page.text), page, '', 'only the agreement\'s methods (transfer, no card)', 'a page offering card');
  for (const [id, fields] of [[failing, { payment_key: '000000', leg2: 'accreditation_failed' }], [succeeding, { payment_key: '000000' }], [refused, { payment_key: '111111' }]] as const) {
    const answer = await payByForm(ctx, id, fields);
    expect.that(answer.status >= 200 && answer.status < 400, answer, '', 'the form accepted (2xx, or a redirect to the result)', `${answer.status}`);
  }
  expect.equal(await readSession(http, account, refused), '/status', 'failed', 'key 111111 fails the payment');
  for (const id of [failing, succeeding]) expect.equal(await readSession(http, account, id), '/status', 'paid', 'key 000000 pays');
  // Leg 2 follows about 5 s after paying by the page: on the account's clock.
  await advanceClock(http, account, 10_000);
  const failed = await accreditationOf(ctx, account, failing);
  expect.that(failed?.body?.accreditation?.status === 'failed', failed ?? null, '/accreditation/status', '"failed": the leg-2 choice made on the form', failed?.body?.accreditation?.status ?? 'no accreditation within the wait');
  const accredited = await accreditationOf(ctx, account, succeeding);
  expect.that(accredited?.body?.accreditation?.status === 'accredited', accredited ?? null, '/accreditation/status', '"accredited": the default leg-2 choice', accredited?.body?.accreditation?.status ?? 'no accreditation within the wait');
}

async function creation(ctx: CheckContext): Promise<void> {
  const { http, expect } = ctx;
  const account = await registerAccount(http);
  const agreement = await createAgreement(http, account);
  const button = (body: Record<string, unknown>) => http('POST', '/api/v1/ext/payment-sessions/buttons', { json: { agreement_id: agreement, amount_reference: 12.5, ...body }, token: account.token });
  const made = await button({});
  if (expect.status(made, 201)) {
    for (const [pointer, value] of [['/status', 'pending'], ['/currency_reference', 'USD'], ['/due_date_reached_behavior', 'expire'], ['/accreditation/status', 'none'], ['/session_payment/origin', 'button'], ['/amount_reference', 12.5], ['/agreement_id', agreement]] as const) expect.equal(made, pointer, value);
    expect.that(typeof made.body?.pay_url === 'string' && made.body.pay_url.includes(made.body.session_id), made, '/pay_url', 'the payment page of the session', made.body?.pay_url);
    const read = await http('GET', `/payment-sessions/${made.body.session_id}`, { token: account.token });
    if (expect.status(read, 200)) expect.equal(read, '/session_id', made.body.session_id, 'the same session at /payment-sessions/{id}');
  }
  for (const amount of [0, -1, 1.234, '10']) expect.status(await button({ amount_reference: amount }), 400, 'VALIDATION_FAILED');
  expect.status(await button({ due_date_reached_behavior: 'forever' }), 400, 'VALIDATION_FAILED');
  expect.status(await http('POST', '/api/v1/ext/payment-sessions/buttons', { json: { amount_reference: 1 }, token: account.token }), 400, 'VALIDATION_FAILED');
  // Another currency than the agreement's is refused by our document; the addendum leaves it open.
  if (ctx.profile === 'strict') expect.status(await button({ currency_reference: 'EUR' }), 400, 'VALIDATION_FAILED');
  // The Request batch: all or nothing, whatever continue_on_error says (spec: Payment-session product).
  const batch = await http('POST', '/api/v1/ext/payment-sessions/requests', { json: { sessions: [{ agreement_id: agreement, amount_reference: 1 }, { agreement_id: agreement, amount_reference: 2 }] }, token: account.token });
  if (expect.status(batch, 201)) {
    const ids = ((batch.body?.sessions ?? []) as Array<{ session_id: string; session_payment?: { origin?: string } }>);
    expect.that(ids.length === 2 && ids.every((x) => x.session_payment?.origin === 'request'), batch, '/sessions', 'two sessions of origin request', ids.map((x) => x.session_payment?.origin).join(', '));
    const again = await http('GET', `/api/v1/ext/payment-sessions/requests/${batch.body.batch_id}`, { token: account.token });
    if (expect.status(again, 200)) expect.that(JSON.stringify((again.body?.sessions ?? []).map((x: { session_id: string }) => x.session_id)) === JSON.stringify(ids.map((x) => x.session_id)), again, '/sessions', 'the batch\'s sessions', again.text.slice(0, 80));
  }
  const before = ((await http('GET', '/console/sessions', { token: account.consoleToken })).body?.data ?? []).length as number;
  expect.status(await http('POST', '/api/v1/ext/payment-sessions/requests', { json: { continue_on_error: true, sessions: [{ agreement_id: agreement, amount_reference: 1 }, { agreement_id: agreement, amount_reference: -1 }] }, token: account.token }), 400, 'VALIDATION_FAILED');
  const after = ((await http('GET', '/console/sessions', { token: account.consoleToken })).body?.data ?? []).length as number;
  expect.that(after === before, null, '', 'a refused Request batch creates nothing (continue_on_error ignored)', `${after - before} created`);
}

export const sessionChecks: Check[] = [
  {
    id: 'sessions.create',
    decisions: ['other-currency', 'answer-bodies'],
    title: 'a session as created and read; amounts > 0 with at most 2 decimals, the behaviour, the currency; the Request batch all or nothing',
    source: 'spec: Payment session, Payment-session product; addendum §5 (session create, Request batch)',
    operations: ['createButtonSession', 'readPaymentSession', 'createRequestBatch', 'getRequestBatch', 'getConsoleSessions'],
    run: creation,
  },
  {
    id: 'sessions.split',
    decisions: ['success-status'],
    title: 'a split partner must be linked on a split agreement (400), exist in the account (404), and the shares fit the amount',
    source: 'spec: Errors 2; addendum §5 (split)',
    operations: ['createSplitAgreement', 'createButtonSession'],
    run: split,
  },
  {
    id: 'sessions.commission',
    decisions: ['success-status'],
    title: 'one credit per receiver, 1 % commission each rounded half-up to the cent, the summary',
    source: 'spec: Payment session, Payload shapes 3; addendum §5 (accreditation)',
    operations: ['forceSessionOutcome', 'getPaymentSession', 'readPaymentSession'],
    run: commission,
  },
  {
    id: 'sessions.outcomes',
    decisions: ['success-status'],
    title: 'forced outcomes: admitted from the states the addendum names, 500 INVALID_FORCED_TRANSITION otherwise, 400 for a malformed body',
    source: 'spec: Payment session (simulator behaviour) 2, 5, 8; addendum §6',
    operations: ['forceSessionOutcome', 'getPaymentSession'],
    run: outcomes,
  },
  {
    id: 'sessions.console-view',
    strictOnly: true,
    title: 'the console\'s view of a session offers exactly the forced outcomes forcing admits; another account\'s session is 404',
    source: 'ours: the console takes its rules from the server (addendum §6 for the rules)',
    operations: ['getConsoleSession', 'forceSessionOutcome'],
    run: consoleView,
  },
  {
    id: 'sessions.expire',
    decisions: ['success-status', 'answer-bodies'],
    title: 'expire: pending and failed → expired, expired unchanged, paid 422 SESSION_ALREADY_PAID',
    source: 'spec: Payment session (simulator behaviour) 6; addendum §5 (expire)',
    operations: ['expirePaymentSession', 'getPaymentSession'],
    run: expire,
  },
  {
    id: 'sessions.due-dates',
    decisions: ['past-due-date', 'success-status'],
    title: 'due dates on the account\'s clock: expire and keep_active, a past due date expired on the first read',
    source: 'spec: Payment session (simulator behaviour) 7; addendum §6 (clock)',
    operations: ['createButtonSession', 'getPaymentSession', 'advanceControlClock', 'getControlClock'],
    run: dueDates,
  },
  {
    id: 'sessions.payment-page',
    decisions: ['success-status'],
    title: 'the payment page: the agreement\'s methods only, magic keys, and the leg-2 choice of the form honoured',
    source: 'spec: Simulator-only surfaces 4, Payment session 3; addendum §8 (payment page)',
    operations: ['showPaymentPage', 'payPaymentPage', 'getPaymentSession'],
    run: paymentPage,
  },
];
