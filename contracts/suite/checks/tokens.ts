import type { Check, CheckContext } from './check.js';
import { need, provisionTerminal, registerAccount, relayUpgradeStatus } from './fixtures.js';

// Token kinds and the POS signature (INTERFACE.md §1, §2).

/** The same token with its last character changed: well formed, unknown. */
const unknownLike = (token: string) => `${token.slice(0, -1)}${token.endsWith('0') ? '1' : '0'}`;

async function kinds(ctx: CheckContext): Promise<void> {
  const { http, expect } = ctx;
  const account = await registerAccount(http);
  const apiOnly = [
    '/api/v1/ext/stops',
    '/control/clock',
    `${account.merchant}/transactions`,
    `${account.merchant}/pos-terminals`,
  ];
  for (const path of apiOnly) {
    expect.status(await http('GET', path, { token: account.consoleToken }), 401, 'WRONG_TOKEN_KIND');
    expect.status(await http('GET', path, { token: unknownLike(account.token) }), 401, 'INVALID_TOKEN');
    expect.status(await http('GET', path), 401);
  }
  for (const path of ['/console/keys', '/console/sessions', '/console/trace']) {
    expect.status(await http('GET', path, { token: account.token }), 401, 'WRONG_TOKEN_KIND');
    expect.status(await http('GET', path, { token: unknownLike(account.consoleToken) }), 401, 'INVALID_TOKEN');
  }
  // Login: its token opens the API like the API token, and it rotates the console token.
  const login = await http('POST', '/api/svcpagos/login', {
    json: { email: account.email, password: account.password },
  });
  if (expect.status(login, 200)) {
    expect.equal(login, '/expires_in', 3600);
    expect.status(await http('GET', '/api/v1/ext/stops', { token: login.body.token }), 200);
    expect.status(await http('GET', '/console/keys', { token: login.body.token }), 401, 'WRONG_TOKEN_KIND');
    expect.status(await http('GET', '/console/keys', { token: account.consoleToken }), 401, 'INVALID_TOKEN');
    expect.status(await http('GET', '/console/keys', { token: login.body.console_token }), 200);
    const refreshed = await http('POST', '/api/svcpagos/refresh-token', {
      json: { refreshToken: login.body.refreshToken },
    });
    if (expect.status(refreshed, 200)) {
      expect.that(
        refreshed.headers.get('x-svc-sim') === 'fuera-de-contrato',
        refreshed,
        'header:x-svc-sim',
        'fuera-de-contrato',
        refreshed.headers.get('x-svc-sim') ?? 'none',
      );
      expect.status(await http('GET', '/console/keys', { token: login.body.console_token }), 200); // a refresh does not rotate it
    }
    expect.status(
      await http('POST', '/api/svcpagos/refresh-token', { json: { refreshToken: login.body.refreshToken } }),
      200,
    ); // the previous one stays valid
  }
  expect.status(
    await http('POST', '/api/svcpagos/login', { json: { email: account.email, password: `${account.password}!` } }),
    401,
  );
  // The relay opens with the API token only; the console token is refused at the upgrade.
  const cited = expect.citing('INTERFACE.md §8 (relay)');
  const refusal = await relayUpgradeStatus(ctx.baseUrl, account.consoleToken);
  cited.that(
    refusal === 401,
    null,
    '',
    'GET /relay with the console token refused with HTTP 401 at the upgrade',
    `${refusal === 0 ? 'no answer' : refusal}`,
  );
}

async function posSignature(ctx: CheckContext): Promise<void> {
  const { http, expect } = ctx;
  const account = await registerAccount(http);
  const terminal = await provisionTerminal(http, account);
  const list = `/api/v1/pos-terminals/${encodeURIComponent(terminal.serial)}/transactions?status=PENDING`;
  expect.status(await terminal.send('GET', list), 200);
  expect.status(await terminal.send('GET', list, undefined, { secret: '0'.repeat(64) }), 401, 'SIGNATURE_INVALID');
  expect.status(await terminal.send('GET', list, undefined, { at: Date.now() - 600_000 }), 401, 'SIGNATURE_STALE');
  expect.status(await http('GET', list), 401, 'SIGNATURE_INVALID');
  const stranger = { ...terminal, serial: `NO-SUCH-${terminal.serial}` };
  expect.status(
    await stranger.send('GET', `/api/v1/pos-terminals/${encodeURIComponent(stranger.serial)}/transactions`),
    401,
    'SIGNATURE_INVALID',
  );
  // The same signed request twice: the second is a replay.
  const headers = terminal.sign('GET', list);
  need(await http('GET', list, { headers }), 200, 'a signed list');
  expect.status(await http('GET', list, { headers }), 401, 'SIGNATURE_REPLAYED');
}

export const tokenChecks: Check[] = [
  {
    id: 'tokens.kinds',
    title:
      'API, login and console tokens open their surfaces only; the other kind is WRONG_TOKEN_KIND, an unknown one INVALID_TOKEN; login rotates the console token',
    source: 'INTERFACE.md §1',
    operations: [
      'login',
      'refreshToken',
      'getConsoleKeys',
      'listStops',
      'getControlClock',
      'listMerchantOrders',
      'openRelay',
    ],
    run: kinds,
  },
  {
    id: 'tokens.pos-signature',
    title:
      'the POS signature: a wrong one SIGNATURE_INVALID, an old timestamp SIGNATURE_STALE, the same one twice SIGNATURE_REPLAYED',
    source: 'INTERFACE.md §2',
    operations: ['listTerminalOrders'],
    run: posSignature,
  },
];
