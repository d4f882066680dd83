import type { CheckContext } from './check.js';
import {
  ANY_2XX,
  accountNow,
  advanceClock,
  createAgreement,
  createSession,
  forceOutcome,
  need,
  readSession,
  registerAccount,
} from './fixtures.js';

// A session's end by time (INTERFACE.md §5): expired by hand, and what its due date does on the account's clock.

export async function expire(ctx: CheckContext): Promise<void> {
  const { http, expect } = ctx;
  const account = await registerAccount(http);
  const agreement = await createAgreement(http, account);
  const fresh = async () =>
    (await createSession(http, account, { agreement_id: agreement, amount_reference: 4 })).session_id as string;
  const expireOf = (id: string) => http('POST', `/api/v1/ext/payment-sessions/${id}/expire`, { token: account.token });
  // The status is read back: INTERFACE.md does not fix what an expire answers beside its 200.
  const pending = await fresh();
  if (expect.status(await expireOf(pending), 200))
    expect.equal(await readSession(http, account, pending), '/status', 'expired');
  if (expect.status(await expireOf(pending), 200))
    expect.equal(
      await readSession(http, account, pending),
      '/status',
      'expired',
      'expiring an expired session: 200, unchanged',
    );
  const failed = await fresh();
  need(await forceOutcome(http, account, failed, 1, 'failed'), ANY_2XX, 'forcing leg 1 failed');
  if (expect.status(await expireOf(failed), 200))
    expect.equal(await readSession(http, account, failed), '/status', 'expired');
  const paid = await fresh();
  need(await forceOutcome(http, account, paid, 1, 'paid'), ANY_2XX, 'forcing leg 1 paid');
  expect.status(await expireOf(paid), 422, 'SESSION_ALREADY_PAID');
  expect.equal(await readSession(http, account, paid), '/status', 'paid', 'a refused expire changes nothing');
}

export async function dueDates(ctx: CheckContext): Promise<void> {
  const { http, expect } = ctx;
  const account = await registerAccount(http);
  const agreement = await createAgreement(http, account);
  const now = await accountNow(http, account);
  const due = new Date(now + 60_000).toISOString();
  const expiring = (
    await createSession(http, account, { agreement_id: agreement, amount_reference: 2, due_date_session: due })
  ).session_id as string;
  const kept = (
    await createSession(http, account, {
      agreement_id: agreement,
      amount_reference: 2,
      due_date_session: due,
      due_date_reached_behavior: 'keep_active',
    })
  ).session_id as string;
  const past = await http('POST', '/api/v1/ext/payment-sessions/buttons', {
    json: { agreement_id: agreement, amount_reference: 2, due_date_session: new Date(now - 60_000).toISOString() },
    token: account.token,
  });
  // A due date already past: accepted and expired on the first read (ours), or refused (open choice past-due-date).
  const refusedPast = ctx.profile === 'interface' && past.status === 400;
  if (refusedPast) expect.status(past, 400, 'VALIDATION_FAILED');
  else if (expect.status(past, 201))
    expect.equal(
      await readSession(http, account, past.body.session_id),
      '/status',
      'expired',
      'a due date in the past: expired on the first read',
    );
  expect.equal(await readSession(http, account, expiring), '/status', 'pending', 'before its due date');
  await advanceClock(http, account, 61_000);
  expect.equal(
    await readSession(http, account, expiring),
    '/status',
    'expired',
    "after its due date on the account's clock (expire)",
  );
  expect.equal(
    await readSession(http, account, kept),
    '/status',
    'pending',
    "after its due date on the account's clock (keep_active)",
  );
}
