import type { SuiteResponse } from '../suite-client.js';
import type { CheckContext } from './check.js';
import {
  advanceClock,
  createAgreement,
  createSession,
  readSession,
  registerAccount,
  waitFor,
  type SuiteAccount,
} from './fixtures.js';

// The payment page (INTERFACE.md §8): each method's form, paid with a magic key, and how leg 2 ends as chosen there.

const METHODS = ['card', 'transfer', 'mobile_payment', 'wallet'];

/**
 * The fields the page's form asks for a method, read from the page itself
 * (INTERFACE.md fixes method, payment_key and leg2, not the names of each
 * method's own fields): `transfer.bank` or a bare `bank`, never another
 * method's. Each gets digits, which every field of ours accepts.
 */
export function methodFields(page: string, method: string): Record<string, string> {
  const names = [...page.matchAll(/<(?:input|select|textarea)\b[^>]*\bname="([^"]+)"/g)].map((m) => m[1]!);
  const own = names.filter(
    (name) =>
      !['method', 'payment_key', 'leg2'].includes(name) &&
      (name.startsWith(`${method}.`) || !METHODS.some((other) => name.startsWith(`${other}.`))),
  );
  return Object.fromEntries((own.length > 0 ? own : ['bank', 'account_number']).map((name) => [name, '12345678']));
}

/** Pays through the payment page's form, with a leg-2 choice (absent: the default). */
async function payByForm(ctx: CheckContext, sessionId: string, fields: Record<string, string>): Promise<SuiteResponse> {
  const page = await ctx.http('GET', `/pay/${sessionId}`, { headers: { accept: 'text/html' } });
  const form = new URLSearchParams({ method: 'transfer', ...methodFields(page.text, 'transfer'), ...fields });
  return ctx.http('POST', `/pay/${sessionId}`, {
    raw: form.toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
  });
}

async function accreditationOf(
  ctx: CheckContext,
  account: SuiteAccount,
  sessionId: string,
): Promise<SuiteResponse | undefined> {
  return waitFor(async () => {
    const read = await readSession(ctx.http, account, sessionId);
    const status = read.body?.accreditation?.status;
    return status === 'accredited' || status === 'failed' ? read : undefined;
  }, ctx.settleMs);
}

export async function paymentPage(ctx: CheckContext): Promise<void> {
  const { http, expect } = ctx;
  const account = await registerAccount(http);
  const agreement = await createAgreement(http, account, { methods: ['transfer'] });
  const failing = (await createSession(http, account, { agreement_id: agreement, amount_reference: 6 }))
    .session_id as string;
  const succeeding = (await createSession(http, account, { agreement_id: agreement, amount_reference: 6 }))
    .session_id as string;
  const refused = (await createSession(http, account, { agreement_id: agreement, amount_reference: 6 }))
    .session_id as string;
  const page = await http('GET', `/pay/${failing}`, { headers: { accept: 'text/html' } });
  if (expect.status(page, 200))
    expect.that(
      !/(value|name)="card[".]/.test(page.text) && /transfer/.test(page.text),
      page,
      '',
      "only the agreement's methods (transfer, no card)",
      'a page offering card',
    );
  for (const [id, fields] of [
    [failing, { payment_key: '000000', leg2: 'accreditation_failed' }],
    [succeeding, { payment_key: '000000' }],
    [refused, { payment_key: '111111' }],
  ] as const) {
    const answer = await payByForm(ctx, id, fields);
    expect.that(
      answer.status >= 200 && answer.status < 400,
      answer,
      '',
      'the form accepted (2xx, or a redirect to the result)',
      `${answer.status}`,
    );
  }
  expect.equal(await readSession(http, account, refused), '/status', 'failed', 'key 111111 fails the payment');
  for (const id of [failing, succeeding])
    expect.equal(await readSession(http, account, id), '/status', 'paid', 'key 000000 pays');
  // Leg 2 follows about 5 s after paying by the page: on the account's clock.
  await advanceClock(http, account, 10_000);
  const failed = await accreditationOf(ctx, account, failing);
  expect.that(
    failed?.body?.accreditation?.status === 'failed',
    failed ?? null,
    '/accreditation/status',
    '"failed": the leg-2 choice made on the form',
    failed?.body?.accreditation?.status ?? 'no accreditation within the wait',
  );
  const accredited = await accreditationOf(ctx, account, succeeding);
  expect.that(
    accredited?.body?.accreditation?.status === 'accredited',
    accredited ?? null,
    '/accreditation/status',
    '"accredited": the default leg-2 choice',
    accredited?.body?.accreditation?.status ?? 'no accreditation within the wait',
  );
}
