import t, { type Test } from 'tap';
import type { Page } from 'playwright-core';
import { browserSkip, openBrowser } from '../testing/browser.js';
import { merchantWithTerminal, startTestServer, type TestServer } from '../testing/test-server.js';
import { catalog } from '../sessions/sessions-testkit.js';
import { startRelayClient } from '../../contracts/clients/relay-client.js';

// Sixteen Chromium scenarios, about 93 s together on a quiet two-core machine: room for each to take four times
// as long on a busy one (136 s with two CPU-bound processes beside it, past the 120 s every file gets).
t.setTimeout(16 * 25_000);

// The console as an operator uses it, in Chromium: live without redraws,
// the event panel's signature check, a rotated token, and what it costs
// on the network while nothing happens.

async function openConsole(page: Page, server: TestServer, consoleToken: string) {
  await page.goto(`${server.baseUrl}/console`);
  await page.getByLabel('Console token').fill(consoleToken);
  await page.getByRole('button', { name: 'Open' }).click();
  await page.locator('#live-bar:not([hidden])').waitFor();
}

/** Chromium, a server, an account with a session to each of `receivers` (the account's own hooks), and the console open on it. */
async function consoleWithSessions(t: Test, receivers: Array<'paid' | 'fail' | 'captura'>) {
  const browser = await openBrowser(t);
  const server = await startTestServer(t);
  const { createSession, account } = await catalog(server);
  const hook = (receiver: string) => `${server.baseUrl}/console/hooks/${account.account_id}/${receiver}`;
  const sessions = [];
  for (const receiver of receivers) sessions.push(await createSession({ webhook_url: hook(receiver) }));
  await server.app.jobs.dispatcher.runDue();
  /** The sim ladder run to its end: 2 and 5 s more, and a failing delivery is given up. */
  const exhaustLadder = async () => {
    for (const step of [2000, 5000]) {
      server.clock.advance(step);
      await server.app.jobs.dispatcher.runDue();
    }
  };
  const page = await browser.newPage();
  const open = () => openConsole(page, server, account.console_token);
  return { browser, server, account, sessions, hook, page, open, exhaustLadder };
}

t.test(
  'a new event appears within a second as a new row: the rows there, a selection and the focus stay',
  { skip: browserSkip() },
  async (t) => {
    const browser = await openBrowser(t);
    const server = await startTestServer(t);
    const { createSession, account } = await catalog(server);
    const first = await createSession();
    const page = await browser.newPage();
    await openConsole(page, server, account.console_token);
    const row = page.locator('#trace tr[data-type="session.created"]', { hasText: first.session_id });
    await row.waitFor();
    // The operator selects a cell's text and has a button focused.
    await page.evaluate(() => {
      const cell = document.querySelector('#trace tr[data-type="session.created"] td:nth-child(3)')!;
      (window as unknown as { marked: Element }).marked = cell.parentElement!;
      getSelection()!.selectAllChildren(cell);
    });
    const selected = await page.evaluate(() => String(getSelection()));
    await row.getByRole('button', { name: /^Details of session\.created/ }).focus();

    const asked = Date.now();
    const second = await createSession();
    await page
      .locator('#trace tr[data-type="session.created"]', { hasText: second.session_id })
      .waitFor({ timeout: 5000 });
    const shownAfter = Date.now() - asked;
    t.comment(`event to its row: ${shownAfter} ms`);
    t.ok(shownAfter < 1000, `the new event's row appeared ${shownAfter} ms after it happened`);
    t.ok(
      await page.evaluate(() => (window as unknown as { marked: Element }).marked.isConnected),
      'the row that was there is the same element: nothing was redrawn',
    );
    t.equal(await page.evaluate(() => String(getSelection())), selected, 'the selection survived');
    t.match(
      await page.evaluate(() => document.activeElement?.getAttribute('aria-label')),
      /^Details of session\.created/,
      'the focus stayed on its button',
    );
    t.match(
      await page.locator('#trace-news').textContent(),
      /New event|new events/,
      'only the hidden line announces what is new',
    );
    t.equal(await page.locator('#trace').getAttribute('aria-live'), null, 'the table itself is not a live region');

    // Paused, nothing changes; on resume, what came meanwhile appears.
    await page.getByRole('button', { name: 'Pause live updates' }).click();
    const third = await createSession();
    await page.waitForTimeout(1200); // real time: the stream is real; this is how long an update would take
    t.equal(await page.locator('#trace tr', { hasText: third.session_id }).count(), 0, 'paused: not shown');
    await page.getByRole('button', { name: 'Resume live updates' }).click();
    await page
      .locator('#trace tr[data-type="session.created"]', { hasText: third.session_id })
      .waitFor({ timeout: 2000 });
    t.pass('resumed: shown');
  },
);

t.test(
  'the event panel shows the delivery and checks its signature with the secret one types: right, and wrong',
  { skip: browserSkip() },
  async (t) => {
    const browser = await openBrowser(t);
    const server = await startTestServer(t);
    const { createSession, account } = await catalog(server);
    await createSession({ webhook_url: `${server.baseUrl}/console/hooks/${account.account_id}/captura` });
    const page = await browser.newPage();
    await openConsole(page, server, account.console_token);
    await page
      .getByRole('button', { name: /^Details of webhook\.emitted/ })
      .first()
      .click();
    const panel = page.locator('#event-panel');
    await panel.locator('h3', { hasText: 'Attempts' }).waitFor();
    t.match(await panel.textContent(), /svc-signature: [0-9a-f]{64}/, 'the headers');
    t.match(await panel.textContent(), /"event": "payment_session\.created"/, 'the payload, pretty-printed');
    t.match(await panel.textContent(), /curl -X POST YOUR_RECEIVER_URL .*--data-binary '/, 'a curl line to replay it');
    const attempt = panel.locator('[data-attempt="1"]');
    t.match(await attempt.textContent(), /Attempt 1 200 delivered/, 'its attempt, with a badge');
    t.match(await attempt.textContent(), /Routingloopback/, 'how it was routed');
    t.match(
      await attempt.textContent(),
      new RegExp(`To${server.baseUrl}/console/hooks/${account.account_id}/captura`),
      'where it went',
    );
    t.match(await attempt.textContent(), /Answer\{"received":true\}/, 'what the receiver answered');
    t.equal(await page.locator('#event-drawer').count(), 1, 'in a drawer');
    t.equal(
      await page.evaluate(() =>
        document.getElementById('event-drawer')?.previousElementSibling?.getAttribute('data-type'),
      ),
      'webhook.emitted',
      'just under the row it details',
    );
    await page.getByLabel('Verify the signature with your secret').fill(account.key.webhook_secret);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.locator('#verify-result', { hasText: '✓' }).waitFor();
    t.pass("the account's secret verifies it");
    await page.getByLabel('Verify the signature with your secret').fill('whsec_not_this_one');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.locator('#verify-result', { hasText: '✗' }).waitFor();
    t.pass('another secret does not');
  },
);

t.test(
  "operator task, timed: why a session's webhook failed, and replaying it to another URL, in 3 clicks from the first screen",
  { skip: browserSkip() },
  async (t) => {
    const {
      sessions: [session],
      hook,
      page,
      open,
    } = await consoleWithSessions(t, ['fail']);
    await open();
    const started = Date.now();
    let clicks = 0;
    const click = async (locator: ReturnType<Page['locator']>) => {
      clicks += 1;
      await locator.click();
    };
    await click(page.getByRole('button', { name: `Open session ${session.session_id}` }));
    await click(
      page
        .locator('#session-events')
        .getByRole('button', { name: /^Details of webhook\.attempt/ })
        .first(),
    );
    const attempt = page.locator('#event-panel [data-attempt="1"]');
    await attempt.waitFor();
    t.match(await attempt.textContent(), /500 failed/, 'the failure shows as such');
    t.match(await attempt.textContent(), /RECEIVER_FAILS_ON_PURPOSE/, "and why: the receiver's answer");
    await page.getByLabel('Resend to').fill(hook('paid'));
    await click(page.getByRole('button', { name: 'Resend', exact: true }));
    await page
      .locator('#drawer-resend-result', { hasText: /Attempt 2 to .*\/paid: 200/ })
      .waitFor({ timeout: 5000 })
      .catch(async (error: Error) => {
        throw new Error(
          `${error.message}; it says: ${await page.locator('#drawer-resend-result').textContent()}; error: ${await page.locator('#error').textContent()}`,
        );
      });
    const took = Date.now() - started;
    t.comment(`${clicks} clicks, ${took} ms from the console's first screen`);
    t.ok(clicks <= 3, `${clicks} clicks`);
    t.match(
      await page.locator('#event-panel [data-attempt="2"]').textContent(),
      /200 delivered/,
      'the replay is the newest attempt in the drawer',
    );
  },
);

t.test(
  'after a new login rotates the console token, the old tab locks: no request leaves it, every control is disabled, no token or secret remains, and it logs in again in the page',
  { skip: browserSkip() },
  async (t) => {
    const browser = await openBrowser(t);
    const server = await startTestServer(t);
    const { account, createSession } = await catalog(server);
    const session = await createSession();
    const page = await browser.newPage();
    const requests: string[] = [];
    page.on('request', (request) => requests.push(`${request.method()} ${request.url()}`));
    await openConsole(page, server, account.console_token);
    // The operator had things open: a session's control plane, the keys revealed, a secret typed to verify an event.
    await page.getByRole('button', { name: `Open session ${session.session_id}` }).click();
    await page.locator('#session-panel:not([hidden])').waitFor();
    await page.getByRole('button', { name: 'Reveal webhook secret' }).click();
    await page
      .locator('#verify-secret')
      .evaluate((input: HTMLInputElement, secret) => (input.value = secret), account.key.webhook_secret);

    const login = await server.api.post('/api/svcpagos/login', {
      json: { email: account.email, password: account.password },
    });
    t.equal(login.status, 200);
    const lockStarted = Date.now();
    await page.locator('#error', { hasText: 'no longer works' }).waitFor({ timeout: 10_000 });
    t.comment(`locked ${Date.now() - lockStarted} ms after the login elsewhere`);
    const after = requests.length;
    t.equal(
      await page.evaluate(() => document.activeElement?.id),
      'relogin-email',
      'the focus is on the login in the page',
    );

    // Every control but the ways back in (log in, paste a token, register) is disabled; clicking them anyway asks nothing.
    const enabled = await page.evaluate(() =>
      [...document.querySelectorAll('button, input, select, textarea')]
        .filter((c) => !(c as HTMLInputElement).disabled && !c.closest('#login, #relogin, #register'))
        .map((c) => c.outerHTML.slice(0, 80)),
    );
    t.same(enabled, [], 'every control is disabled');
    for (const name of ['Show the POS side', 'Pause live updates'])
      await page
        .getByRole('button', { name })
        .click({ force: true, timeout: 2000 })
        .catch(() => undefined);
    await page.waitForTimeout(2500); // real time: checking that nothing more is asked
    t.same(requests.slice(after), [], '0 requests after the lock');

    // No token or secret in the DOM, in storage or in what the page's script can reach.
    const left = await page.evaluate(
      (secrets) => {
        const html = document.documentElement.outerHTML;
        const values = [...document.querySelectorAll('input, textarea')]
          .map((input) => (input as HTMLInputElement).value)
          .join(' ');
        const storage = JSON.stringify({ ...sessionStorage }) + JSON.stringify({ ...localStorage });
        const script = JSON.stringify((globalThis as unknown as { state?: unknown }).state ?? null, (key, value) =>
          value instanceof Map ? [...value] : value,
        );
        return secrets.filter(
          (secret) =>
            html.includes(secret) || values.includes(secret) || storage.includes(secret) || script.includes(secret),
        );
      },
      [
        account.key.token,
        account.key.webhook_secret,
        account.console_token,
        login.body.console_token,
        login.body.token,
      ],
    );
    t.same(left, [], 'no token or secret remains');
    t.equal(await page.locator('#live-bar').isHidden(), true, 'the live controls are gone');

    // Log in again, in the page.
    await page.getByLabel('Email', { exact: true }).fill(account.email);
    await page.getByLabel('Password', { exact: true }).fill(account.password);
    await page.getByRole('button', { name: 'Log in again' }).click();
    await page.locator('#live-bar:not([hidden])').waitFor();
    await page.locator('#keys pre[data-secret="API token"]').waitFor();
    t.equal(
      await page.getByRole('button', { name: 'Show the POS side' }).isDisabled(),
      false,
      'the controls work again',
    );
    t.equal(await page.locator('#relogin-password').inputValue(), '', 'the password is not kept in the field');
  },
);

t.test('with JavaScript off, each payment method pays through the page', { skip: browserSkip() }, async (t) => {
  const browser = await openBrowser(t, { javaScriptEnabled: false });
  const server = await startTestServer(t);
  const { post } = await catalog(server);
  const agreement = await post('/api/v1/ext/agreements', {
    name: 'All methods',
    currency_reference: 'USD',
    split: false,
    payment_methods: ['card', 'transfer', 'mobile_payment', 'wallet'],
  });
  const fill: Record<string, Array<[string, string]>> = {
    Card: [
      ['Name on the card', 'Ada Lovelace'],
      ['Card number', '4111 1111 1111 1111'],
      ['Expiry (MM/YY)', '12/29'],
      ['Security code', '123'],
    ],
    'Bank transfer': [
      ['Bank', 'Demo'],
      ['Account number', '12345'],
    ],
    'Mobile payment': [
      ['Mobile phone number', '5550100'],
      ['Document number', 'X1'],
    ],
    Wallet: [['Wallet e-mail or id', 'ada@example.com']],
  };
  const page = await browser.newPage();
  for (const [method, fields] of Object.entries(fill)) {
    const session = await post('/api/v1/ext/payment-sessions/buttons', {
      agreement_id: agreement.agreement_id,
      amount_reference: 10,
    });
    await page.goto(`${server.baseUrl}/pay/${session.session_id}`);
    await page.getByRole('radio', { name: method, exact: true }).check();
    for (const [label, value] of fields) await page.getByLabel(label, { exact: true }).fill(value);
    await page.getByLabel('Key', { exact: true }).fill('000000');
    await Promise.all([
      page.waitForURL(`**/pay/${session.session_id}`),
      page.getByRole('button', { name: /^Pay / }).click(),
    ]);
    t.match(await page.locator('h1').textContent(), /Payment accepted/, `${method}: paid without a script`);
  }
});

t.test(
  'idle, with 10,000 sessions, the open console costs little on the network',
  { skip: browserSkip(), timeout: 120_000 },
  async (t) => {
    const browser = await openBrowser(t);
    const server = await startTestServer(t);
    const { account } = await catalog(server);
    await server.store.transact((tx) => {
      for (let i = 0; i < 10_000; i += 1) {
        const id = `ses_${String(i).padStart(18, '0')}`;
        tx.put('sessions', id, {
          session_id: id,
          account_id: account.account_id,
          status: 'pending',
          agreement_id: 'agr_x',
          amount_cents: 100,
          currency_reference: 'USD',
          due_date_session: null,
          due_date_reached_behavior: 'expire',
          webhook_url: null,
          created_at: new Date(Date.parse('2026-01-01T00:00:00Z') + i).toISOString(),
          accreditation: { status: 'none' },
          session_payment: { id: `pay_${String(i).padStart(18, '0')}`, origin: 'button', amount_reference: 1 },
          description: null,
          event_seq: 0,
          distribution: [],
          split: false,
          origin: 'button',
        });
      }
    });
    const page = await browser.newPage();
    await openConsole(page, server, account.console_token);
    await page.locator('#sessions tr').first().waitFor();
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    let bytes = 0;
    cdp.on('Network.dataReceived', (event: { encodedDataLength: number }) => (bytes += event.encodedDataLength));
    cdp.on(
      'Network.requestWillBeSentExtraInfo',
      (event: { headers: Record<string, string> }) =>
        (bytes += Object.entries(event.headers).reduce((n, [k, v]) => n + k.length + v.length + 4, 0) + 40),
    );
    cdp.on(
      'Network.responseReceivedExtraInfo',
      (event: { headersText?: string }) => (bytes += event.headersText?.length ?? 0),
    );
    const windowMs = 31_000; // real time: the network over a while of nothing happening, one progress refresh included
    await page.waitForTimeout(windowMs);
    const perMinute = (bytes * 60_000) / windowMs;
    t.comment(
      `idle console with 10,000 sessions: ${bytes} bytes in ${windowMs / 1000} s, ${(perMinute / 1024).toFixed(1)} KB a minute`,
    );
    t.ok(perMinute < 50 * 1024, `${(perMinute / 1024).toFixed(1)} KB a minute, under 50`);
  },
);

t.test(
  'one click away: ids are links the URL keeps, a prefix finds an event, labels are words, amounts follow their currency, times are local with the ISO time on hover',
  { skip: browserSkip() },
  async (t) => {
    const {
      browser,
      server,
      account,
      sessions: [session],
      page,
      open,
    } = await consoleWithSessions(t, ['captura']);
    await open();

    // States read as badges: colour and words.
    t.match(
      await page.locator(`#sessions tr[data-id="${session.session_id}"] .badge`).first().textContent(),
      'pending',
    );
    t.equal(
      await page.locator(`#sessions tr[data-id="${session.session_id}"] .badge.wait`).count(),
      2,
      'pending, and its accreditation none: both waiting',
    );

    // The session's id is a link; following it opens the session, and the URL says so.
    await page.locator('#sessions a', { hasText: session.session_id }).click();
    await page.locator('#session-panel:not([hidden])').waitFor();
    t.equal(new URL(page.url()).hash, `#${session.session_id}`, 'the URL keeps the session');
    t.ok(
      (await page.getByRole('button', { name: 'Force the accreditation to fail' }).count()) === 0,
      'only the admissible outcomes (leg 1 now)',
    );
    t.equal(await page.getByRole('button', { name: 'Force paid' }).count(), 1, 'outcomes in words');
    t.match(
      await page.locator('#session-fields').textContent(),
      /AmountUSD\s?\d/,
      'the amount with its currency code first, as the currency writes it',
    );

    // A deep link opens the same from a fresh page.
    const fresh = await browser.newPage();
    await fresh.goto(`${server.baseUrl}/console#${session.session_id}`);
    await fresh.getByLabel('Console token').fill(account.console_token);
    await fresh.getByRole('button', { name: 'Open', exact: true }).click();
    await fresh.locator('#session-panel:not([hidden])').waitFor();
    t.match(await fresh.locator('#session-title').textContent(), session.session_id, 'a shared link opens the session');

    // A prefix of an event id finds the event, opened under its row; the error of a failed search goes.
    const [emitted] = (
      await server.api.get(`/console/trace?type=webhook.emitted&session_id=${session.session_id}`, {
        token: account.console_token,
      })
    ).body.data as Array<{ event_id: string }>;
    await page.getByLabel('Find id').fill('evt_nothing_like_it');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.locator('#error', { hasText: 'No entry starting with evt_nothing_like_it' }).waitFor();
    await page.getByLabel('Find id').fill(emitted!.event_id.slice(0, 10));
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.locator('#event-drawer #event-panel:not([hidden])').waitFor();
    t.match(
      await page.locator('#event-title').textContent(),
      /^webhook\.emitted/,
      'the event as emitted, with its attempts',
    );
    t.equal(await page.locator('#error').textContent(), '', 'the earlier error is gone');

    // Times: local text, the ISO instant on hover, on one line.
    const time = page.locator('#trace time').first();
    t.match(await time.getAttribute('title'), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    t.equal(await time.evaluate((node) => getComputedStyle(node).whiteSpace), 'nowrap');
    // The clock ticks here without asking the server each second.
    t.match(await page.locator('#clock').textContent(), /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC/);
  },
);

t.test(
  "sessions filter by accreditation through the server, an id is found by its start, and times say how long ago on the account's clock",
  { skip: browserSkip() },
  async (t) => {
    const { server, account, sessions, page, open } = await consoleWithSessions(t, ['captura', 'captura', 'captura']);
    const [, accredited] = sessions;
    const token = account.key.token;
    for (const [leg, outcome] of [
      [1, 'paid'],
      [2, 'accredited'],
    ] as const) {
      t.equal(
        (await server.api.post(`/control/sessions/${accredited.session_id}/outcome`, { json: { leg, outcome }, token }))
          .status,
        200,
      );
    }
    await open();
    const listed = async () =>
      page.locator('#sessions tr').evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset.id));
    await page.locator(`#sessions tr[data-id="${accredited.session_id}"]`).waitFor();

    // The accreditation filter: asked of the server, which answers through an index.
    const asked: string[] = [];
    page.on(
      'request',
      (request) => request.url().includes('/console/sessions?') && asked.push(new URL(request.url()).search),
    );
    await page.getByLabel('Accreditation').selectOption('accredited');
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    await page.waitForFunction(() => document.querySelectorAll('#sessions tr').length === 1);
    t.same(await listed(), [accredited.session_id], 'the accredited session alone');
    t.match(asked.at(-1), /accreditation=accredited/);
    await page.getByLabel('Accreditation').selectOption('none');
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    await page.waitForFunction(() => document.querySelectorAll('#sessions tr').length === 2);
    t.same(
      new Set(await listed()),
      new Set([sessions[0].session_id, sessions[2].session_id]),
      'the two not accredited',
    );

    // The start of an id: several listed to choose from; a start only one has opens it.
    await page.getByLabel('Session id starts with').fill('ses_');
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    await page.waitForFunction(() => document.querySelectorAll('#sessions tr').length === 3);
    t.ok(await page.locator('#session-panel').isHidden(), 'several found: none opened');
    const others = sessions.filter((s) => s !== accredited).map((s) => s.session_id);
    let length = 5;
    while (others.some((id) => id.startsWith(accredited.session_id.slice(0, length)))) length += 1;
    await page.getByLabel('Session id starts with').fill(accredited.session_id.slice(0, length));
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    await page.locator('#session-panel:not([hidden])').waitFor();
    t.match(
      await page.locator('#session-title').textContent(),
      accredited.session_id,
      'the one session starting so, opened',
    );
    await page.getByLabel('Session id starts with').fill('ses_no_such_start');
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    await page.locator('#error', { hasText: 'No session starting with ses_no_such_start' }).waitFor();

    // Relative times follow the account's clock: an hour on, the sessions were made an hour ago.
    t.match(await page.locator('#trace time .relative').first().textContent(), '(less than a minute ago)');
    await page.getByRole('button', { name: '+1 h' }).click();
    await page.locator('#trace time .relative', { hasText: '(1 hour ago)' }).first().waitFor();
    t.match(await page.locator('#trace time').first().getAttribute('title'), /Z$/, 'the ISO time still on hover');
  },
);

t.test("the POS side shows an order's amount in its currency's units", { skip: browserSkip() }, async (t) => {
  const browser = await openBrowser(t);
  const server = await startTestServer(t);
  const merchant = await merchantWithTerminal(server);
  await merchant.createOrder({ amount: 4599, currency: 'USD' });
  await merchant.createOrder({ amount: 4599, currency: 'CLP' });
  const page = await browser.newPage();
  await openConsole(page, server, merchant.account.console_token);
  await page.getByRole('button', { name: 'Show the POS side' }).click();
  await page.locator('#pos table').first().waitFor();
  const text = await page.locator('#pos').textContent();
  t.match(text, /USD\s?45\.99/, '4599 cents of USD are 45.99');
  t.match(text, /CLP\s?4,599/, 'a peso has no cents');
  t.notMatch(text, /4599 USD/);
});

t.test(
  'the POS side pages its terminals and orders, and follows new orders by itself',
  { skip: browserSkip() },
  async (t) => {
    const browser = await openBrowser(t);
    const server = await startTestServer(t);
    const merchant = await merchantWithTerminal(server);
    for (let i = 0; i < 11; i += 1)
      await server.api.post(`${merchant.merchantPath}/pos-terminals`, {
        json: { serialNumber: `PAGE-${i}-${process.pid}` },
        token: merchant.account.key.token,
      });
    const page = await browser.newPage();
    await page.clock.install(); // the page's own timers, moved by the test: no waiting for the 5 s refresh
    await openConsole(page, server, merchant.account.console_token);
    await page.getByRole('button', { name: 'Show the POS side' }).click();
    await page.locator('#pos table').first().waitFor();
    t.match(await page.locator('#pos caption').first().textContent(), 'Terminals (12)');
    t.equal(await page.locator('#pos table').first().locator('tbody tr').count(), 10, 'ten terminals a page');
    await page.getByRole('button', { name: 'Next terminals' }).click();
    await page.locator('#pos', { hasText: 'terminals, page 2' }).waitFor();
    t.equal(await page.locator('#pos table').first().locator('tbody tr').count(), 2, 'and the rest on the next');

    const { orderId } = await merchant.createOrder({ amount: 1234, currency: 'USD' });
    await page.clock.runFor(5000);
    await page.locator('#pos td', { hasText: orderId }).waitFor();
    t.pass('a new order appears without a click');
  },
);

t.test(
  "operator tasks, timed: force paid then accredited; a terminal's latest settlement; each within 3 clicks of the first screen",
  { skip: browserSkip() },
  async (t) => {
    const browser = await openBrowser(t);
    const server = await startTestServer(t);
    const merchant = await merchantWithTerminal(server);
    const account = merchant.account;
    await merchant.pos.notifySettlement({
      batchNumber: 'B0007',
      transactionCount: 3,
      closedAt: '2026-11-20T18:00:00.000Z',
      currencyReference: 'USD',
      terminal: merchant.serialNumber,
      debitBatch: 'D0007',
    });
    await merchant.pos.notifySettlement({
      batchNumber: 'B0008',
      transactionCount: 5,
      closedAt: '2026-11-21T18:00:00.000Z',
      currencyReference: 'USD',
      terminal: merchant.serialNumber,
      debitBatch: 'D0008',
    });
    const agreement = (
      await server.api.post('/api/v1/ext/agreements', {
        json: { name: 'Tasks', currency_reference: 'USD', split: false, payment_methods: ['card'] },
        token: account.key.token,
      })
    ).body;
    const session = (
      await server.api.post('/api/v1/ext/payment-sessions/buttons', {
        json: { agreement_id: agreement.agreement_id, amount_reference: 12 },
        token: account.key.token,
      })
    ).body;
    const page = await browser.newPage();
    await openConsole(page, server, account.console_token);

    let clicks = 0;
    let started = Date.now();
    const click = async (locator: ReturnType<Page['locator']>) => ((clicks += 1), locator.click());
    await click(page.getByRole('button', { name: `Open session ${session.session_id}` }));
    await click(page.getByRole('button', { name: 'Force paid' }));
    await click(page.getByRole('button', { name: 'Force accredited' }));
    await page.locator('#session-fields', { hasText: /Accreditationaccredited/ }).waitFor();
    t.comment(`force paid then accredited: ${clicks} clicks, ${Date.now() - started} ms`);
    t.ok(clicks <= 3);

    clicks = 0;
    started = Date.now();
    await click(page.getByRole('button', { name: 'Show the POS side' }));
    const settlements = page.locator('#pos table', {
      has: page.locator('caption', { hasText: `Settlements of ${merchant.serialNumber}` }),
    });
    await settlements.waitFor();
    t.match(
      await settlements.locator('tbody tr').first().textContent(),
      /^B00085/,
      'the latest settlement first: B0008, 5 transactions',
    );
    t.comment(`a terminal's latest settlement: ${clicks} click, ${Date.now() - started} ms`);
    t.ok(clicks <= 3);

    // The clock: to the next due, in one click.
    await click(page.getByRole('button', { name: 'To the next due' }));
    await page.locator('#clock-result', { hasText: 'Nothing is due' }).waitFor();
    t.pass('nothing waits, and it says so');
  },
);

t.test(
  'the console offers the forced outcomes the server admits: leg 1 again on a failed session, leg 2 once paid, none once accredited',
  { skip: browserSkip() },
  async (t) => {
    const browser = await openBrowser(t);
    const server = await startTestServer(t);
    const { createSession, account } = await catalog(server);
    const session = await createSession({});
    const force = (leg: number, outcome: string) =>
      server.api.post(`/control/sessions/${session.session_id}/outcome`, {
        json: { leg, outcome },
        token: account.key.token,
      });
    t.equal((await force(1, 'failed')).status, 200);
    const page = await browser.newPage();
    await openConsole(page, server, account.console_token);
    await page.getByRole('button', { name: `Open session ${session.session_id}` }).click();
    const offered = async () =>
      (await page.locator('#session-controls button').allTextContents()).filter((text) => text.startsWith('Force'));
    await page.locator('#session-controls button', { hasText: 'Force paid' }).waitFor();
    t.same(
      await offered(),
      ['Force paid', 'Force failed', 'Force expired'],
      'failed: leg 1, as the server admits it (the console once offered nothing)',
    );
    await page.getByRole('button', { name: 'Force paid' }).click();
    await page.locator('#session-controls button', { hasText: 'Force accredited' }).waitFor();
    t.same(await offered(), ['Force accredited', 'Force the accreditation to fail'], 'paid: leg 2 only');
    await page.getByRole('button', { name: 'Force accredited' }).click();
    await page
      .locator('#session-controls', {
        hasText: 'Nothing left to force: the session is paid and its accreditation accredited, which is final.',
      })
      .waitFor();
    t.same(await offered(), [], 'accredited: none');
  },
);

t.test('resend every failed event of the account from the trace, in one click', { skip: browserSkip() }, async (t) => {
  const { page, open, exhaustLadder } = await consoleWithSessions(t, ['fail']);
  await exhaustLadder();
  await open();
  await page.getByRole('button', { name: 'Resend every failed event' }).click();
  await page.locator('#resend-failed-result', { hasText: 'Resent 1 failed event(s): 0 delivered now.' }).waitFor();
  t.pass('the given-up event was attempted again, and the page says how it went');
});

t.test(
  "the trace filters attempts by how they ended, and shows each attempt's status as a badge",
  { skip: browserSkip() },
  async (t) => {
    const { page, open } = await consoleWithSessions(t, ['fail', 'captura']);
    await open();
    await page.locator('#trace tr[data-type="webhook.attempt"] .badge.bad').first().waitFor();
    t.match(
      await page.locator('#trace tr[data-type="webhook.attempt"] .badge.bad').first().textContent(),
      /^500 failed$/,
      'a failed attempt reads as failed',
    );
    t.match(
      await page.locator('#trace tr[data-type="webhook.attempt"] .badge.ok').first().textContent(),
      /^200 delivered$/,
      'a delivered one as delivered',
    );
    await page.getByLabel('Attempts').selectOption('failed');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForFunction(() =>
      [...document.querySelectorAll('#trace tr')].every((row) => row.querySelector('.badge.bad')),
    );
    const rows = await page.locator('#trace tr').count();
    t.ok(rows >= 1, `${rows} failed attempt(s), and nothing else`);
  },
);

/** Where a text node's characters go to a new line inside `selector`: the characters each line starts with, past the first. */
async function lineStarts(page: Page, selector: string): Promise<string[]> {
  return page.locator(selector).evaluate((element) => {
    const starts: string[] = [];
    let text = '';
    let top: number | null = null;
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (let i = 0; i < (node.textContent ?? '').length; i += 1) {
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const rect = [...range.getClientRects()].find((r) => r.width > 0);
        if (rect && top !== null && Math.round(rect.top) > top) starts.push(text);
        if (rect) top = Math.round(rect.top);
        text += node.textContent![i];
      }
    }
    return starts;
  });
}

t.test(
  "the first screen is the README's: log in with email and password (or paste the token); nothing else works before; every secret masked alike; the layout holds at 390 px",
  { skip: browserSkip(), timeout: 60_000 },
  async (t) => {
    const browser = await openBrowser(t);
    const server = await startTestServer(t);
    const { account, split, post, token } = await catalog(server);
    const page = await browser.newPage();
    await page.setViewportSize({ width: 390, height: 900 });
    await page.goto(`${server.baseUrl}/console`);
    for (const label of ['Email', 'Password', 'Console token'])
      t.equal(await page.getByLabel(label, { exact: true }).isVisible(), true, `${label} is on the first screen`);
    t.equal(
      await page.getByLabel('Console token').getAttribute('type'),
      'password',
      'a pasted console token is masked as it is typed',
    );
    t.equal(
      await page.getByRole('button', { name: 'Show the POS side' }).isDisabled(),
      true,
      'the POS side waits for the login',
    );
    const enabled = await page.evaluate(() =>
      [...document.querySelectorAll('button, input, select, textarea')]
        .filter((c) => !(c as HTMLInputElement).disabled && !c.closest('#sign-in'))
        .map((c) => c.outerHTML.slice(0, 80)),
    );
    t.same(enabled, [], 'nothing but the ways in can be used');
    await page.screenshot({ path: '/tmp/console-first-screen.png' }).catch(() => undefined);

    await page.getByLabel('Email', { exact: true }).fill(account.email);
    await page.getByLabel('Password', { exact: true }).fill(account.password);
    await page.getByRole('button', { name: 'Log in', exact: true }).click();
    await page.locator('#live-bar:not([hidden])').waitFor();
    t.equal(await page.locator('#sign-in').isHidden(), true, 'the ways in leave the screen');
    t.equal(await page.getByRole('button', { name: 'Show the POS side' }).isDisabled(), false, 'and the controls work');
    const consoleToken = await page.evaluate(() => sessionStorage.getItem('console-token'));
    t.match(consoleToken, /^ct_/, "the login's console token is the one in use");
    const shown = await page.evaluate(
      () => document.body.innerText + [...document.querySelectorAll('input')].map((input) => input.value).join(' '),
    );
    t.notOk(
      shown.includes(consoleToken!),
      'the console token is nowhere on screen, as the API token and the webhook secret are not',
    );
    t.notOk(shown.includes(account.key.token) || shown.includes(account.key.webhook_secret), 'those masked too');
    t.equal(
      await page.getByRole('button', { name: 'Resend every failed event' }).isHidden(),
      true,
      'nothing failed: no resend of the failed',
    );
    // A receiver's URL breaks after a slash, never inside the account id.
    const receiverBreaks = await lineStarts(page, '#receivers dd:first-of-type code.url');
    t.ok(receiverBreaks.length > 0, `the URL takes ${receiverBreaks.length + 1} lines at 390 px`);
    t.ok(
      receiverBreaks.every((before) => before.endsWith('/')),
      `each line ends at a slash: ${JSON.stringify(receiverBreaks)}`,
    );

    // A split session, paid and accredited: its credits in the currency, one row a receiver.
    const session = await post('/api/v1/ext/payment-sessions/buttons', {
      agreement_id: split.agreement_id,
      amount_reference: 25.5,
      webhook_url: `${server.baseUrl}/console/hooks/${account.account_id}/captura`,
    });
    for (const [leg, outcome] of [
      [1, 'paid'],
      [2, 'accredited'],
    ] as const)
      t.equal(
        (await server.api.post(`/control/sessions/${session.session_id}/outcome`, { json: { leg, outcome }, token }))
          .status,
        200,
      );
    await page.goto(`${server.baseUrl}/console#${session.session_id}`);
    await page.locator('#session-panel:not([hidden]) table', { hasText: 'Credits by receiver' }).waitFor();
    const fields = await page.locator('#session-fields').innerText();
    t.match(
      fields,
      /USD\s[\d.]+ net of USD\s25\.50, after USD\s[\d.]+ in commissions, to (one receiver|\d+ receivers)$/m,
      'the credits read as money, to whom',
    );
    t.notMatch(fields, /credit\(s\)|\{"/, 'no raw JSON, no (s)');
    const receivers = /to (one|\d+) receivers?/.exec(fields)![1]!;
    t.equal(
      await page.locator('#session-fields table tbody tr').count(),
      receivers === 'one' ? 1 : Number(receivers),
      'a row a receiver',
    );
    t.match(
      await page.locator('#session-fields table tbody tr').first().innerText(),
      /USD\s[\d.]+\s+USD\s[\d.]+\s+USD\s[\d.]+\s+credited/,
    );

    // Opening a delivery puts it in the address; the resend box shows the whole URL.
    // From the trace, whose rows are added and never redrawn (the session's list is redrawn as its events come).
    await page
      .locator('#trace')
      .getByRole('button', { name: /^Details of webhook\.emitted/ })
      .first()
      .click();
    await page.locator('#event-panel:not([hidden]) #drawer-resend-url').waitFor();
    t.match(new URL(page.url()).hash, /^#evt_/, 'the address names the event');
    await page
      .locator('#event-panel')
      .screenshot({ path: '/tmp/console-session.png' })
      .catch(() => undefined);
    await page.setViewportSize({ width: 1280, height: 900 });
    const fits = await page
      .locator('#drawer-resend-url')
      .evaluate((input: HTMLInputElement) => ({ value: input.value, fits: input.scrollWidth <= input.clientWidth }));
    t.ok(
      fits.value.length > 60 && fits.fits,
      `the resend box holds ${fits.value.length} characters of URL without cutting them`,
    );
    await page.getByRole('button', { name: 'Close' }).click();
    t.equal(new URL(page.url()).hash, '', 'closed: the address no longer names it');

    // With a failed delivery, the resend of the failed comes.
    const failing = await post('/api/v1/ext/payment-sessions/buttons', {
      agreement_id: split.agreement_id,
      amount_reference: 3,
      webhook_url: `${server.baseUrl}/console/hooks/${account.account_id}/fail`,
    });
    t.equal(
      (
        await server.api.post(`/control/sessions/${failing.session_id}/outcome`, {
          json: { leg: 1, outcome: 'paid' },
          token,
        })
      ).status,
      200,
    );
    for (const step of [0, 2000, 5000]) {
      server.clock.advance(step);
      await server.app.jobs.dispatcher.runDue();
    }
    await page.getByRole('button', { name: 'Resend every failed event' }).waitFor({ timeout: 10_000 });
    t.pass('shown once a delivery was given up, live');
  },
);

t.test(
  'the console shows the relay: never connected, connected with its cursor, then gone, live',
  { skip: browserSkip() },
  async (t) => {
    const browser = await openBrowser(t);
    const server = await startTestServer(t);
    const { account } = await catalog(server);
    const page = await browser.newPage();
    await openConsole(page, server, account.console_token);
    await page.locator('#relay-state', { hasText: 'never connected' }).waitFor();
    const client = startRelayClient({
      baseUrl: server.baseUrl,
      token: account.key.token,
      forwardTo: 'http://127.0.0.1:9/webhooks',
      log: () => undefined,
      cursor: { position: 7, save: () => undefined },
    });
    t.teardown(() => client.stop());
    await client.connected;
    await page.locator('#relay-state', { hasText: 'connected since' }).waitFor({ timeout: 10_000 });
    t.match(
      await page.locator('#relay-state').textContent(),
      /came back at position 7; last resume: 0 deliveries, 0 in all/,
    );
    client.stop();
    await page.locator('#relay-state', { hasText: 'not connected since' }).waitFor({ timeout: 10_000 });
    t.match(
      await page.locator('#relay-state').textContent(),
      /closed with code 1000; what it misses is resent when it comes back/,
    );
  },
);
