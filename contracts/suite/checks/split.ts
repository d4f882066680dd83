import type { CheckContext } from './check.js';
import {
  ANY_2XX,
  createAgreement,
  createPartner,
  createSession,
  forceOutcome,
  need,
  registerAccount,
} from './fixtures.js';

// Split agreements and their commissions (INTERFACE.md §5): who is credited what, to the cent.

const cents = (n: unknown) => Math.round(Number(n) * 100);

export async function split(ctx: CheckContext): Promise<void> {
  const { http, expect } = ctx;
  const account = await registerAccount(http);
  const splitAgreement = await createAgreement(http, account, { split: true });
  const plainAgreement = await createAgreement(http, account, { split: false });
  const linked = await createPartner(http, account);
  const unlinked = await createPartner(http, account);
  expect.status(
    await http('POST', '/api/v1/ext/split-agreements', {
      json: { agreement_id: splitAgreement, partner_id: linked },
      token: account.token,
    }),
    201,
  );
  const button = (agreement_id: string, partner_id: string, share = 5) =>
    http('POST', '/api/v1/ext/payment-sessions/buttons', {
      json: { agreement_id, amount_reference: 20, split: { distribution: [{ partner_id, amount_reference: share }] } },
      token: account.token,
    });
  expect.status(await button(splitAgreement, linked), 201);
  expect.status(await button(splitAgreement, unlinked), 400);
  expect.status(await button(splitAgreement, linked, 25), 400); // more than the session's amount
  expect.status(await button(plainAgreement, unlinked), 201); // split false: accepted, the partner still validated…
  expect.status(await button(plainAgreement, 'ptn_unknown_partner_0'), 404, 'NOT_FOUND'); // …so an unknown one is 404
}

export async function commission(ctx: CheckContext): Promise<void> {
  const { http, expect } = ctx;
  const account = await registerAccount(http);
  const agreement = await createAgreement(http, account, { split: true });
  const partner = await createPartner(http, account);
  need(
    await http('POST', '/api/v1/ext/split-agreements', {
      json: { agreement_id: agreement, partner_id: partner },
      token: account.token,
    }),
    201,
    'linking the partner',
  );
  const session = await createSession(http, account, {
    agreement_id: agreement,
    amount_reference: 20,
    split: { distribution: [{ partner_id: partner, amount_reference: 5.55 }] },
  });
  need(await forceOutcome(http, account, session.session_id, 1, 'paid'), ANY_2XX, 'forcing leg 1 paid');
  need(await forceOutcome(http, account, session.session_id, 2, 'accredited'), ANY_2XX, 'forcing leg 2 accredited');
  for (const path of [
    `/api/v1/ext/payment-sessions/${session.session_id}`,
    `/payment-sessions/${session.session_id}`,
  ]) {
    const read = await http('GET', path, { token: account.token });
    if (!expect.status(read, 200)) continue;
    const credits = (read.body?.session_payment?.receiver_credits ?? []) as Array<Record<string, unknown>>;
    const owner = credits.find((c) => c.receiver_type === 'owner');
    const theirs = credits.find((c) => c.receiver_type === 'partner');
    // 1 % of each credit, rounded half-up to the cent: 5.55 → 0.06 (0.0555), 14.45 → 0.14 (0.1445).
    const shape = (c: Record<string, unknown> | undefined) =>
      c && [cents(c.gross_amount), cents(c.commission), cents(c.net_amount)];
    expect.that(
      JSON.stringify(shape(theirs)) === JSON.stringify([555, 6, 549]),
      read,
      '/session_payment/receiver_credits',
      "the partner's credit: gross 5.55, commission 0.06, net 5.49",
      theirs ?? 'none',
    );
    expect.that(
      JSON.stringify(shape(owner)) === JSON.stringify([1445, 14, 1431]),
      read,
      '/session_payment/receiver_credits',
      "the owner's credit: gross 14.45, commission 0.14, net 14.31",
      owner ?? 'none',
    );
    const summary = read.body?.session_payment?.receiver_credits_summary ?? {};
    expect.that(
      cents(summary.gross_amount) === 2000 &&
        cents(summary.commissions) === 20 &&
        cents(summary.net_amount) === 1980 &&
        summary.total_credits === 2,
      read,
      '/session_payment/receiver_credits_summary',
      'gross 20, commissions 0.20, net 19.80, total_credits 2',
      summary,
    );
  }
}
