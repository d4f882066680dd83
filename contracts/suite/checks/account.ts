import type { Check, CheckContext } from './check.js';
import { createAgreement, createSession, need, readSession, registerAccount, terminalOf, unique } from './fixtures.js';
import { consoleLists } from './console-lists.js';
import { consoleScenarios } from './console-scenarios.js';
import { clock } from './clock.js';

// The account's surfaces: reset, the rate brake, terminals and their
// secrets, the error bodies, the console's lists (INTERFACE.md §0, §2, §6, §8).

async function reset(ctx: CheckContext): Promise<void> {
  const { http, expect } = ctx;
  const mine = await registerAccount(http);
  const theirs = await registerAccount(http);
  const myAgreement = await createAgreement(http, mine);
  const mySession = (await createSession(http, mine, { agreement_id: myAgreement, amount_reference: 2 }))
    .session_id as string;
  const theirSession = (
    await createSession(http, theirs, { agreement_id: await createAgreement(http, theirs), amount_reference: 2 })
  ).session_id as string;
  expect.status(await http('POST', '/control/reset', { token: mine.token }), 200);
  expect.status(await readSession(http, mine, mySession), 404, 'NOT_FOUND');
  expect.status(
    await http('POST', '/api/v1/ext/payment-sessions/buttons', {
      json: { agreement_id: myAgreement, amount_reference: 1 },
      token: mine.token,
    }),
    404,
    'NOT_FOUND',
  );
  const sessions = await http('GET', '/console/sessions', { token: mine.consoleToken });
  if (expect.status(sessions, 200)) expect.equal(sessions, '/data', [], 'no sessions after a reset');
  expect.status(await http('GET', '/api/v1/ext/stops', { token: mine.token }), 200); // the account and its tokens stay
  expect.equal(
    await readSession(http, theirs, theirSession),
    '/session_id',
    theirSession,
    "another account's data is not touched",
  );
  expect.status(await http('POST', '/__test__/reset', { token: mine.token }), 200);
}

async function rateBrake(ctx: CheckContext): Promise<void> {
  const { http, expect } = ctx;
  const braked = await registerAccount(http);
  const free = await registerAccount(http);
  expect.success(await http('PUT', '/console/rate-limit', { json: { per_minute: 2 }, token: braked.consoleToken })); // open choice success-status
  const first = await http('GET', '/api/v1/ext/stops', { token: braked.token });
  if (expect.status(first, 200)) {
    expect.that(
      first.headers.get('x-ratelimit-limit') === '2',
      first,
      'header:x-ratelimit-limit',
      '2',
      first.headers.get('x-ratelimit-limit') ?? 'none',
    );
    expect.that(
      first.headers.get('x-ratelimit-remaining') === '1',
      first,
      'header:x-ratelimit-remaining',
      '1',
      first.headers.get('x-ratelimit-remaining') ?? 'none',
    );
    const reset = Number(first.headers.get('x-ratelimit-reset'));
    expect.that(
      Number.isInteger(reset) && Math.abs(reset - Date.now() / 1000) <= 120,
      first,
      'header:x-ratelimit-reset',
      'epoch seconds within the minute',
      first.headers.get('x-ratelimit-reset') ?? 'none',
    );
  }
  expect.status(await http('GET', '/control/clock', { token: braked.token }), 200);
  const over = await http('GET', '/api/v1/ext/stops', { token: braked.token });
  if (expect.status(over, 429, 'RATE_LIMITED'))
    expect.that(
      /^\d+$/.test(over.headers.get('retry-after') ?? ''),
      over,
      'header:retry-after',
      'seconds',
      over.headers.get('retry-after') ?? 'none',
    );
  expect.status(await http('GET', '/console/keys', { token: braked.consoleToken }), 200); // never /console/**
  expect.status(await http('GET', '/api/v1/ext/stops', { token: free.token }), 200); // another account
  if (ctx.profile === 'strict') {
    // INTERFACE.md says what answers carry while the brake is on; that they carry nothing while it is off is ours.
    const freeAnswer = await http('GET', '/api/v1/ext/stops', { token: free.token });
    expect.that(
      freeAnswer.headers.get('x-ratelimit-limit') === null,
      freeAnswer,
      'header:x-ratelimit-limit',
      'none while the brake is off',
      freeAnswer.headers.get('x-ratelimit-limit') ?? '',
    );
  }
  expect.status(
    await http('PUT', '/console/rate-limit', { json: { per_minute: 0 }, token: braked.consoleToken }),
    400,
    'VALIDATION_FAILED',
  );
  expect.status(
    await http('PUT', '/console/rate-limit', { json: { per_minute: 100_001 }, token: braked.consoleToken }),
    400,
    'VALIDATION_FAILED',
  );
  expect.success(await http('PUT', '/console/rate-limit', { json: { per_minute: null }, token: braked.consoleToken }));
  expect.status(await http('GET', '/api/v1/ext/stops', { token: braked.token }), 200);
}

async function terminals(ctx: CheckContext): Promise<void> {
  const { http, expect } = ctx;
  const account = await registerAccount(http);
  const other = await registerAccount(http);
  const serial = `TS-${unique()}`;
  const created = await http('POST', `${account.merchant}/pos-terminals`, {
    json: { serialNumber: serial },
    token: account.token,
  });
  if (!expect.status(created, 201)) return;
  expect.that(
    /^[0-9a-f]{64}$/.test(created.body?.secret ?? ''),
    created,
    '/secret',
    '64 lowercase hex characters',
    created.body?.secret,
  );
  expect.status(
    await http('POST', `${other.merchant}/pos-terminals`, { json: { serialNumber: serial }, token: other.token }),
    409,
  ); // unique across the service
  const listed = await http('GET', `${account.merchant}/pos-terminals`, { token: account.token });
  if (expect.status(listed, 200))
    expect.that(
      !listed.text.includes(created.body.secret) &&
        (listed.body?.data ?? []).some((t: { serialNumber: string }) => t.serialNumber === serial),
      listed,
      '/data',
      `${serial} listed, without its secret`,
      listed.text.slice(0, 120),
    );
  const old = terminalOf(http, serial, created.body.secret);
  const path = `/api/v1/pos-terminals/${encodeURIComponent(serial)}/transactions`;
  expect.status(await old.send('GET', path), 200);
  const rotated = await http('POST', `${account.merchant}/pos-terminals/${encodeURIComponent(serial)}/secret`, {
    token: account.token,
  });
  if (!expect.status(rotated, 201)) return;
  expect.status(await old.send('GET', path), 401, 'SIGNATURE_INVALID'); // the old secret no longer signs
  expect.status(await terminalOf(http, serial, rotated.body.secret).send('GET', path), 200);
}

async function errors(ctx: CheckContext): Promise<void> {
  const { http, expect } = ctx;
  const account = await registerAccount(http);
  const malformed = await http('POST', '/api/v1/ext/agreements', {
    raw: '{"name": ',
    headers: { 'content-type': 'application/json' },
    token: account.token,
  });
  expect.status(malformed, 400, 'MALFORMED_JSON');
  expect.status(
    await http('POST', '/api/v1/ext/agreements', {
      raw: `{"name":"${'x'.repeat(1024 * 1024)}"}`,
      headers: { 'content-type': 'application/json' },
      token: account.token,
    }),
    413,
    'PAYLOAD_TOO_LARGE',
  );
  const invalid = await http('POST', '/api/v1/ext/agreements', {
    json: { name: 'n', currency_reference: 'usd', split: 'yes', payment_methods: ['card'] },
    token: account.token,
  });
  if (expect.status(invalid, 400, 'VALIDATION_FAILED')) {
    const pointers = ((invalid.body?.details ?? []) as Array<{ pointer?: string }>).map((d) => d.pointer ?? '');
    expect.that(
      ['currency_reference', 'split'].every((field) => pointers.some((p) => p.endsWith(`/${field}`))),
      invalid,
      '/details',
      'one detail per offending field, with its JSON pointer (/currency_reference, /split)',
      pointers.join(', ') || 'none',
    );
  }
  const unknown = await http('GET', `/no-such-route-${unique()}`);
  if (expect.status(unknown, 404))
    expect.that(
      typeof unknown.body?.message === 'string' && typeof unknown.body?.code === 'string',
      unknown,
      '',
      'the error body { message, code }',
      unknown.text.slice(0, 80),
    );
  const wrongMethod = await http('DELETE', '/api/v1/ext/agreements', { token: account.token });
  if (expect.status(wrongMethod, 405))
    expect.that(
      (wrongMethod.headers.get('allow') ?? '').includes('POST'),
      wrongMethod,
      'header:allow',
      'an Allow header naming POST',
      wrongMethod.headers.get('allow') ?? 'none',
    );
  // A repeated create is another object, never a conflict (INTERFACE.md §0).
  const body = { name: 'same', currency_reference: 'USD', split: false, payment_methods: ['card'] };
  const a = need(
    await http('POST', '/api/v1/ext/agreements', { json: body, token: account.token }),
    201,
    'creating an agreement',
  );
  const b = await http('POST', '/api/v1/ext/agreements', { json: body, token: account.token });
  if (expect.status(b, 201))
    expect.that(b.body?.agreement_id !== a.agreement_id, b, '/agreement_id', 'another agreement', b.body?.agreement_id);
}
export const accountChecks: Check[] = [
  {
    id: 'control.clock',
    title: "the account clock: an advance moves it by what was asked, only that account's, and a bad amount is 400",
    source: 'INTERFACE.md §6 (clock)',
    operations: ['getControlClock', 'advanceControlClock', 'advanceControlClockViaTestAlias'],
    decisions: ['zero-clock-advance', 'success-status'],
    run: clock,
  },
  {
    id: 'control.reset',
    title: "a reset empties the caller's account, keeps the account and its tokens, and touches no other",
    source: 'INTERFACE.md §8, §6',
    operations: ['resetAccount', 'resetAccountViaTestAlias', 'getPaymentSession', 'getConsoleSessions'],
    decisions: ['answer-bodies'],
    run: reset,
  },
  {
    id: 'control.rate-brake',
    title:
      'the rate brake: X-RateLimit-* headers, 429 RATE_LIMITED with Retry-After over the limit, never on /console/**, never another account, bounds, off with null',
    source: 'INTERFACE.md §8 (rate brake)',
    operations: ['setRateLimit', 'listStops', 'getControlClock', 'getConsoleKeys'],
    decisions: ['rate-headers-brake-off', 'success-status'],
    run: rateBrake,
  },
  {
    id: 'terminals.secrets',
    title:
      'terminals: serial numbers unique across the service, secrets of 64 hex shown once and never listed, a rotated secret replaces the old one',
    source: 'INTERFACE.md §2',
    operations: ['provisionTerminal', 'listTerminals', 'rotateTerminalSecret', 'listTerminalOrders'],
    run: terminals,
  },
  {
    id: 'errors.bodies',
    title:
      'error bodies: MALFORMED_JSON, PAYLOAD_TOO_LARGE, VALIDATION_FAILED with a pointer per field, 404 JSON for an unknown route, 405 with Allow; a repeated create is another object',
    source: 'INTERFACE.md §0',
    operations: ['createAgreement'],
    run: errors,
  },
  {
    id: 'console.lists',
    title: 'the console: sessions and trace newest first, trace filters and limit bounds, the keys',
    source: 'INTERFACE.md §8 (console)',
    operations: ['getConsoleSessions', 'getConsoleTrace', 'getConsoleKeys'],
    run: consoleLists,
  },
  {
    id: 'console.scenarios',
    title: "ours: the console's Scenarios panel lists the bundled scenarios, plays one on the account, reads its run",
    source: 'docs/scenarios.md (From the console)',
    operations: ['listConsoleScenarios', 'startConsoleScenarioRun', 'getConsoleScenarioRun'],
    strictOnly: true,
    run: consoleScenarios,
  },
];
