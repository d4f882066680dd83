// Which webhook events each change of a session emits (INTERFACE.md §6), as the contract suite checks it.
import type { CheckContext } from './check.js';
import { ANY_2XX, createAgreement, createSession, forceOutcome, need, registerAccount, waitFor } from './fixtures.js';
import { parsed, received } from './deliveries.js';

/** An account with a split agreement and a partner linked to it. */
async function splitWorld(ctx: CheckContext) {
  const { http } = ctx;
  const account = await registerAccount(http);
  const agreement = await createAgreement(http, account, { split: true });
  const partner = need(
    await http('POST', '/api/v1/ext/partners', {
      json: { name: 'events partner', document_id: 'EV-1' },
      token: account.token,
    }),
    201,
    'creating a partner',
  ).partner_id as string;
  need(
    await http('POST', '/api/v1/ext/split-agreements', {
      json: { agreement_id: agreement, partner_id: partner },
      token: account.token,
    }),
    201,
    'linking the partner',
  );
  return { account, agreement, partner };
}

/** One session through each change: leg 1 failed, leg 1 expired, leg 2 failed with two receivers, leg 2 accredited. */
async function everyChange(ctx: CheckContext, world: Awaited<ReturnType<typeof splitWorld>>) {
  const { http } = ctx;
  const { account, agreement, partner } = world;
  const create = async (split: boolean) =>
    (
      await createSession(http, account, {
        agreement_id: agreement,
        amount_reference: 10,
        webhook_url: account.hooks.captura,
        ...(split ? { split: { distribution: [{ partner_id: partner, amount_reference: 4 }] } } : {}),
      })
    ).session_id as string;
  const failed = await create(false);
  need(await forceOutcome(http, account, failed, 1, 'failed'), ANY_2XX, 'forcing leg 1 failed');
  const expiredSession = await create(false);
  need(await forceOutcome(http, account, expiredSession, 1, 'expired'), ANY_2XX, 'forcing leg 1 expired');
  const credits = await create(true);
  need(await forceOutcome(http, account, credits, 1, 'paid'), ANY_2XX, 'forcing leg 1 paid');
  need(
    await forceOutcome(http, account, credits, 2, 'accreditation_failed'),
    ANY_2XX,
    'forcing leg 2 accreditation_failed',
  );
  const accredited = await create(false);
  need(await forceOutcome(http, account, accredited, 1, 'paid'), ANY_2XX, 'forcing leg 1 paid');
  need(await forceOutcome(http, account, accredited, 2, 'accredited'), ANY_2XX, 'forcing leg 2 accredited');
  return { failed, expiredSession, credits, accredited };
}

/** Which events each change emits (INTERFACE.md §6): created at creation, paid, accredited, one failed-credit event per failed credit; failed and expired none. */
export async function events(ctx: CheckContext): Promise<void> {
  const { expect } = ctx;
  const world = await splitWorld(ctx);
  const { account, partner } = world;
  const { failed, expiredSession, credits, accredited } = await everyChange(ctx, world);
  // What reached the captura receiver, from the bytes received (INTERFACE.md fixes the body, not the trace's other fields).
  const deliveredFor = async (session: string) =>
    (await received(ctx, account, session)).map(
      (e) => parsed(e.raw_body) as { event?: string; data?: { receiver_id?: string } },
    );
  const expected: Array<[string, string, string[]]> = [
    [failed, 'leg 1 failed', ['payment_session.created']],
    [expiredSession, 'leg 1 expired', ['payment_session.created']],
    [
      credits,
      'leg 2 accreditation_failed with two receivers',
      [
        'payment_session.created',
        'payment_session.paid',
        'payment_session.accreditation_to_recipient_failed',
        'payment_session.accreditation_to_recipient_failed',
      ],
    ],
    [accredited, 'leg 2 accredited', ['payment_session.created', 'payment_session.paid', 'payment_session.accredited']],
  ];
  // Deliveries follow in the background: wait until as many as expected came (or the wait ends) for every session, then read them all.
  for (const [session, , names] of expected)
    await waitFor(async () => ((await deliveredFor(session)).length >= names.length ? true : undefined), ctx.settleMs);
  for (const [session, what, names] of expected) {
    const got = (await deliveredFor(session)).map((body) => body.event ?? '?');
    expect.that(
      JSON.stringify(got) === JSON.stringify(names),
      null,
      '',
      `${what}: ${names.join(', ')}`,
      got.join(', ') || 'none',
    );
  }
  const failedCredits = (await deliveredFor(credits))
    .filter((body) => body.event === 'payment_session.accreditation_to_recipient_failed')
    .map((body) => body.data?.receiver_id);
  expect.that(
    failedCredits.length === 2 && new Set(failedCredits).size === 2 && failedCredits.includes(partner),
    null,
    '/data/receiver_id',
    `one event per receiver, the partner ${partner} among them`,
    failedCredits.join(', '),
  );
}
