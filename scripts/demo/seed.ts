import { randomBytes } from 'node:crypto';
import { PosClient } from '../../contracts/clients/pos-client.js';
import type { JsonAnswer } from '../../contracts/json-answer.js';

export interface DemoWorld {
  baseUrl: string;
  email: string;
  password: string;
  accountId: string;
  merchantId: string;
  apiToken: string;
  consoleToken: string;
  webhookSecret: string;
  terminals: Array<{ serialNumber: string; secret: string }>;
  orders: Record<string, string>;
  sessions: Record<string, string>;
}

/**
 * Seeds a demo world through the public API: an account, two terminals,
 * orders in every state, settlements, and payment sessions in every status
 * (split receivers included), their webhooks going to the account's own
 * receivers so the console's trace fills up.
 */
export async function seedDemo(
  baseUrl: string,
  options: { now?: () => number; fetch?: typeof fetch } = {},
): Promise<DemoWorld> {
  const send = options.fetch ?? fetch;
  const call = async (method: string, path: string, body?: unknown, token?: string, expect = [200, 201]) => {
    const response = await send(new URL(path, baseUrl), {
      method,
      headers: {
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const answer = (await response.json().catch(() => ({}))) as JsonAnswer;
    if (!expect.includes(response.status))
      throw new Error(`${method} ${path}: ${response.status} ${answer.message ?? ''}`);
    return answer;
  };
  const suffix = randomBytes(3).toString('hex');
  const email = `demo-${suffix}@example.com`;
  // One word, so that a line that prints it cannot be read as a placeholder.
  const password = 'demo-password-1';
  const account = await call('POST', '/console/register', { email, password, short_name: `demo-${suffix}` });
  const token = account.key.token;
  const merchant = `/api/v1/merchants/${account.merchant_id}`;

  // Terminals and orders in every state.
  const terminals: Array<{ serialNumber: string; secret: string }> = [];
  for (const n of [1, 2])
    terminals.push(
      await call(
        'POST',
        `${merchant}/pos-terminals`,
        { serialNumber: `DEMO-${suffix}-${n}`, label: `Counter ${n}` },
        token,
      ),
    );
  const pos = new PosClient({
    baseUrl,
    serialNumber: terminals[0].serialNumber,
    secret: terminals[0].secret,
    ...(options.now ? { now: options.now } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const paidAt = new Date(options.now?.() ?? Date.now()).toISOString();
  const order = (orderId: string, amount: number) =>
    call(
      'POST',
      `${merchant}/transactions`,
      { orderId, terminal: terminals[0].serialNumber, amount, currency: 'USD', description: `demo ${orderId}` },
      token,
    );
  const invalidate = (orderId: string) =>
    call('POST', `${merchant}/transactions/${orderId}/invalidation`, { reason: 'demo' }, token);
  const orders: Record<string, string> = {};
  for (const [name, amount] of [
    ['pending', 1200],
    ['paid', 4599],
    ['discarded', 850],
    ['void-pending', 2300],
    ['voided', 1999],
    ['overridden', 3100],
  ] as const) {
    orders[name] = (await order(`demo-${suffix}-${name}`, amount)).data.orderId;
  }
  await pos.commitPayment(orders.paid!, { authorizationCode: 'DEMO01', paidAt });
  await invalidate(orders.discarded!);
  await pos.commitPayment(orders['void-pending']!, { authorizationCode: 'DEMO02', paidAt });
  await invalidate(orders['void-pending']!);
  await pos.commitPayment(orders.voided!, { authorizationCode: 'DEMO03', paidAt });
  await invalidate(orders.voided!);
  await pos.commitVoid(orders.voided!);
  await invalidate(orders.overridden!);
  await pos.commitPayment(orders.overridden!, { authorizationCode: 'DEMO04', paidAt }); // the commit overrides the discard
  for (const [batch, count] of [
    ['0001', 3],
    ['0002', 2],
  ] as const) {
    await pos.notifySettlement({
      batchNumber: `DEMO-B${batch}`,
      transactionCount: count,
      closedAt: paidAt,
      currencyReference: 'USD',
      terminal: terminals[0].serialNumber,
      debitBatch: `DEMO-D${batch}`,
    });
  }

  // The payment-session product, sessions in every status.
  const split = await call(
    'POST',
    '/api/v1/ext/agreements',
    {
      name: 'Demo marketplace',
      currency_reference: 'USD',
      split: true,
      payment_methods: ['card', 'wallet', 'mobile_payment'],
    },
    token,
  );
  const plain = await call(
    'POST',
    '/api/v1/ext/agreements',
    { name: 'Demo shop', currency_reference: 'USD', split: false, payment_methods: ['transfer', 'card'] },
    token,
  );
  const partners: Array<{ partner_id: string }> = [];
  for (const name of ['Alpha Logistics', 'Beta Crafts']) {
    const partner = await call(
      'POST',
      '/api/v1/ext/partners',
      { name, document_id: `DOC-${name.slice(0, 4).toUpperCase()}` },
      token,
    );
    await call(
      'POST',
      '/api/v1/ext/split-agreements',
      { agreement_id: split.agreement_id, partner_id: partner.partner_id },
      token,
    );
    partners.push(partner);
  }
  const dueIn = (ms: number) => new Date((options.now?.() ?? Date.now()) + ms).toISOString();
  const splitSession = (description: string, amount: number) =>
    call(
      'POST',
      '/api/v1/ext/payment-sessions/buttons',
      {
        agreement_id: split.agreement_id,
        amount_reference: amount,
        description,
        due_date_session: dueIn(24 * 3_600_000),
        webhook_url: account.hooks.captura,
        split: {
          distribution: [
            { partner_id: partners[0].partner_id, amount_reference: Math.round(amount * 30) / 100 },
            { partner_id: partners[1].partner_id, amount_reference: Math.round(amount * 20) / 100 },
          ],
        },
      },
      token,
    );
  const force = (id: string, leg: number, outcome: string) =>
    call('POST', `/control/sessions/${id}/outcome`, { leg, outcome }, token);
  const sessions: Record<string, string> = {};
  sessions.pending = (await splitSession('Waiting for the payer', 150)).session_id;
  sessions.accredited = (await splitSession('Paid and accredited to three receivers', 200.5)).session_id;
  await force(sessions.accredited!, 1, 'paid');
  await force(sessions.accredited!, 2, 'accredited');
  sessions.accreditation_failed = (await splitSession('Paid, accreditation failed', 99.99)).session_id;
  await force(sessions.accreditation_failed!, 1, 'paid');
  await force(sessions.accreditation_failed!, 2, 'accreditation_failed');
  sessions.scheduled = (await splitSession('Paid on the payment page, accreditation scheduled', 75)).session_id;
  await call('POST', `/pay/${sessions.scheduled}`, {
    method: 'card',
    card_holder: 'Demo Payer',
    card_number: '4111 1111 1111 1111',
    card_expiry: '12/29',
    card_cvv: '123',
    payment_key: '000000',
    leg2: 'accredited',
  });
  sessions.failed = (
    await call(
      'POST',
      '/api/v1/ext/payment-sessions/buttons',
      {
        agreement_id: plain.agreement_id,
        amount_reference: 42,
        description: 'Refused: insufficient funds',
        webhook_url: account.hooks.fail,
      },
      token,
    )
  ).session_id;
  await call('POST', `/pay/${sessions.failed}`, {
    method: 'transfer',
    bank: 'Demo Bank',
    account_number: '000123',
    payment_key: '111111',
  });
  sessions.expired = (
    await call(
      'POST',
      '/api/v1/ext/payment-sessions/buttons',
      {
        agreement_id: plain.agreement_id,
        amount_reference: 10,
        description: 'Its due date has passed',
        due_date_session: dueIn(-60_000),
      },
      token,
    )
  ).session_id;
  await call('GET', `/payment-sessions/${sessions.expired}`, undefined, token);

  return {
    baseUrl,
    email,
    password,
    accountId: account.account_id,
    merchantId: account.merchant_id,
    apiToken: token,
    consoleToken: account.console_token,
    webhookSecret: account.key.webhook_secret,
    terminals: terminals.map((t) => ({ serialNumber: t.serialNumber, secret: t.secret })),
    orders,
    sessions,
  };
}

export function describeWorld(world: DemoWorld): string {
  return `Demo world seeded on ${world.baseUrl}

  web console      ${world.baseUrl}/console   (paste the console token, or log in)
  console token    ${world.consoleToken}
                   (logging in, in the console or with the email and password, replaces it:
                   this one then answers 401 "replaced by a login"; use the one the login gives)
  API token        ${world.apiToken}
  webhook secret   ${world.webhookSecret}
  login email      ${world.email}
  login password   ${world.password}
  merchant id      ${world.merchantId}

  payment page (pending session)   ${world.baseUrl}/pay/${world.sessions.pending}
  sessions: ${Object.entries(world.sessions)
    .map(([name, id]) => `${name} ${id}`)
    .join(', ')}
  orders:   ${Object.entries(world.orders)
    .map(([name, id]) => `${name} ${id}`)
    .join(', ')}
  terminals (serial, secret):
${world.terminals.map((t) => `    ${t.serialNumber}  ${t.secret}`).join('\n')}

  try:  curl -s -H 'authorization: Bearer ${world.apiToken}' ${world.baseUrl}/payment-sessions/${world.sessions.accredited}
`;
}
