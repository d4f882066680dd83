// Creating payment sessions (INTERFACE.md §5), as the contract suite checks it.
import type { CheckContext } from './check.js';
import { createAgreement, registerAccount, type SuiteAccount } from './fixtures.js';

export async function creation(ctx: CheckContext): Promise<void> {
  const account = await registerAccount(ctx.http);
  const agreement = await createAgreement(ctx.http, account);
  await buttons(ctx, account, agreement);
  await requestBatches(ctx, account, agreement);
}

/** A button session: its fields as made, read back, and what its body may not be. */
async function buttons(ctx: CheckContext, account: SuiteAccount, agreement: string): Promise<void> {
  const { http, expect } = ctx;
  const button = (body: Record<string, unknown>) =>
    http('POST', '/api/v1/ext/payment-sessions/buttons', {
      json: { agreement_id: agreement, amount_reference: 12.5, ...body },
      token: account.token,
    });
  const made = await button({});
  if (expect.status(made, 201)) {
    for (const [pointer, value] of [
      ['/status', 'pending'],
      ['/currency_reference', 'USD'],
      ['/due_date_reached_behavior', 'expire'],
      ['/accreditation/status', 'none'],
      ['/session_payment/origin', 'button'],
      ['/amount_reference', 12.5],
      ['/agreement_id', agreement],
    ] as const)
      expect.equal(made, pointer, value);
    expect.that(
      typeof made.body?.pay_url === 'string' && made.body.pay_url.includes(made.body.session_id),
      made,
      '/pay_url',
      'the payment page of the session',
      made.body?.pay_url,
    );
    const read = await http('GET', `/payment-sessions/${made.body.session_id}`, { token: account.token });
    if (expect.status(read, 200))
      expect.equal(read, '/session_id', made.body.session_id, 'the same session at /payment-sessions/{id}');
  }
  for (const amount of [0, -1, 1.234, '10'])
    expect.status(await button({ amount_reference: amount }), 400, 'VALIDATION_FAILED');
  expect.status(await button({ due_date_reached_behavior: 'forever' }), 400, 'VALIDATION_FAILED');
  expect.status(
    await http('POST', '/api/v1/ext/payment-sessions/buttons', { json: { amount_reference: 1 }, token: account.token }),
    400,
    'VALIDATION_FAILED',
  );
  // Another currency than the agreement's is refused by our document; INTERFACE.md leaves it open.
  if (ctx.profile === 'strict') expect.status(await button({ currency_reference: 'EUR' }), 400, 'VALIDATION_FAILED');
}

/** The Request batch: all or nothing, whatever continue_on_error says (INTERFACE.md §5). */
async function requestBatches(ctx: CheckContext, account: SuiteAccount, agreement: string): Promise<void> {
  const { http, expect } = ctx;
  const batch = await http('POST', '/api/v1/ext/payment-sessions/requests', {
    json: {
      sessions: [
        { agreement_id: agreement, amount_reference: 1 },
        { agreement_id: agreement, amount_reference: 2 },
      ],
    },
    token: account.token,
  });
  if (expect.status(batch, 201)) {
    const ids = (batch.body?.sessions ?? []) as Array<{ session_id: string; session_payment?: { origin?: string } }>;
    expect.that(
      ids.length === 2 && ids.every((x) => x.session_payment?.origin === 'request'),
      batch,
      '/sessions',
      'two sessions of origin request',
      ids.map((x) => x.session_payment?.origin).join(', '),
    );
    const again = await http('GET', `/api/v1/ext/payment-sessions/requests/${batch.body.batch_id}`, {
      token: account.token,
    });
    if (expect.status(again, 200))
      expect.that(
        JSON.stringify((again.body?.sessions ?? []).map((x: { session_id: string }) => x.session_id)) ===
          JSON.stringify(ids.map((x) => x.session_id)),
        again,
        '/sessions',
        "the batch's sessions",
        again.text.slice(0, 80),
      );
  }
  const before = ((await http('GET', '/console/sessions', { token: account.consoleToken })).body?.data ?? [])
    .length as number;
  expect.status(
    await http('POST', '/api/v1/ext/payment-sessions/requests', {
      json: {
        continue_on_error: true,
        sessions: [
          { agreement_id: agreement, amount_reference: 1 },
          { agreement_id: agreement, amount_reference: -1 },
        ],
      },
      token: account.token,
    }),
    400,
    'VALIDATION_FAILED',
  );
  const after = ((await http('GET', '/console/sessions', { token: account.consoleToken })).body?.data ?? [])
    .length as number;
  expect.that(
    after === before,
    null,
    '',
    'a refused Request batch creates nothing (continue_on_error ignored)',
    `${after - before} created`,
  );
}
