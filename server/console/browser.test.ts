import t from 'tap';
import { browserSkip, openBrowser, wordsSplitAcrossLines } from '../testing/browser.js';
import { startTestServer } from '../testing/test-server.js';
import { catalog } from '../sessions/sessions-testkit.js';

t.test(
  'in Chromium: pay through the page with a magic key, choose how leg 2 ends, and see the session accredited',
  { skip: browserSkip() },
  async (t) => {
    const browser = await openBrowser(t);
    const server = await startTestServer(t, { accreditationDelayMs: 5000 });
    const { split, post, token } = await catalog(server); // offers card and wallet
    const session = await post('/api/v1/ext/payment-sessions/buttons', {
      agreement_id: split.agreement_id,
      amount_reference: 19.99,
      due_date_session: new Date(server.clock.now() + 600_000).toISOString(),
    });

    const page = await browser.newPage();
    await page.goto(`${server.baseUrl}/pay/${session.session_id}`);
    t.equal(await page.locator('.amount').textContent(), '19.99 USD');
    t.equal(await page.getByLabel('Card number').isVisible(), true, "the first method's fields show");
    await page.getByRole('radio', { name: 'Wallet' }).check();
    t.equal(await page.getByLabel('Card number').isVisible(), false, 'choosing another method swaps the fields');
    await page.getByRole('radio', { name: 'Card' }).check();
    await page.getByLabel('Name on the card').fill('Ada Lovelace');
    await page.getByLabel('Card number').fill('4111 1111 1111 1111');
    await page.getByLabel('Expiry (MM/YY)').fill('12/29');
    await page.getByLabel('Security code').fill('123');
    await page.getByLabel('Key', { exact: true }).fill('000000');
    await page.getByRole('radio', { name: 'Accredited', exact: true }).check();
    await page.screenshot({ path: '/tmp/pay-page.png' }).catch(() => undefined);
    await Promise.all([
      page.waitForURL(`**/pay/${session.session_id}`),
      page.getByRole('button', { name: /Pay 19\.99 USD/ }).click(),
    ]);
    t.match(await page.locator('h1').textContent(), /Payment accepted/);
    t.equal(await page.locator('#status').textContent(), 'paid');

    await server.api.post('/control/clock/advance', { json: { ms: 5000 }, token });
    const read = await server.api.get(`/payment-sessions/${session.session_id}`, { token });
    t.equal(read.body.accreditation.status, 'accredited', 'leg 2 ended as chosen on the page');
  },
);

t.test(
  'in Chromium: the console shows keys and progress, and a new trace entry appears live',
  { skip: browserSkip() },
  async (t) => {
    const browser = await openBrowser(t);
    const server = await startTestServer(t);
    const { createSession, account } = await catalog(server);
    const page = await browser.newPage();
    await page.goto(`${server.baseUrl}/console`);
    await page.getByLabel('Console token').fill(account.console_token);
    await page.getByRole('button', { name: 'Open' }).click();
    await page.locator('#keys pre[data-secret="API token"]').waitFor();
    t.notMatch(await page.locator('#keys').textContent(), account.key.token, 'the API token is masked');
    t.notMatch(await page.locator('#keys').textContent(), account.key.webhook_secret, 'so is the webhook secret');
    t.match(
      await page.locator('#keys pre[data-secret="API token"]').textContent(),
      new RegExp(`^sk_•+${account.key.token.slice(-4)}$`),
      'its kind and last 4 characters show',
    );
    await page.getByRole('button', { name: 'Reveal API token' }).click();
    await page.locator('#keys pre', { hasText: account.key.token }).waitFor();
    t.equal(await page.getByRole('button', { name: 'Hide API token' }).getAttribute('aria-pressed'), 'true');
    t.match(await page.locator('#progress').textContent(), /✓ Registered an account/);

    const session = await createSession();
    await page
      .locator('#trace tr[data-type="session.created"]', { hasText: session.session_id })
      .waitFor({ timeout: 10_000 });
    t.pass('the session.created entry appeared without a reload');
    await page.locator('#sessions tr', { hasText: session.session_id }).waitFor();
    await page
      .getByRole('button', { name: /Resend payment_session\.created/ })
      .first()
      .click();
    const status = page.locator('[data-resend]', { hasText: /^resent: / }).first();
    await status.waitFor();
    t.match(
      await status.textContent(),
      /^resent: the session has no webhook_url \(none, \d+ ms\)$/,
      "the attempt's result shows beside its button, and stays",
    );
    await page.screenshot({ path: '/tmp/console-page.png', fullPage: true }).catch(() => undefined);
  },
);

t.test(
  'in Chromium: a refused payment puts the focus on the reason and brings the card number and security code back empty',
  { skip: browserSkip() },
  async (t) => {
    const browser = await openBrowser(t);
    const server = await startTestServer(t);
    const { split, post } = await catalog(server); // offers card and wallet
    const session = await post('/api/v1/ext/payment-sessions/buttons', {
      agreement_id: split.agreement_id,
      amount_reference: 5,
    });
    const page = await browser.newPage();
    await page.goto(`${server.baseUrl}/pay/${session.session_id}`);
    await page.getByLabel('Name on the card').fill('Ada Lovelace');
    await page.getByLabel('Card number').fill('4111 2222 3333 4444');
    await page.getByLabel('Expiry (MM/YY)').fill('12/29');
    await page.getByLabel('Security code').fill('321');
    // The key left empty: the browser would refuse it first, so the form goes without its own check, as a script-less one can.
    await page.locator('#pay').evaluate((form: HTMLFormElement) => form.setAttribute('novalidate', ''));
    await Promise.all([
      page.waitForURL(`**/pay/${session.session_id}`),
      page.getByRole('button', { name: /Pay 5\.00 USD/ }).click(),
    ]);
    t.equal(await page.evaluate(() => document.activeElement?.id), 'error-summary', 'the focus is on the reason');
    t.match(await page.locator('#error-summary').textContent(), /enter the payment key/);
    t.equal(await page.getByLabel('Card number').inputValue(), '', 'the card number is empty');
    t.equal(await page.getByLabel('Security code').inputValue(), '', 'the security code is empty');
    t.equal(await page.getByLabel('Name on the card').inputValue(), 'Ada Lovelace', 'the name is kept');
    const html = await page.content();
    t.notMatch(
      html,
      /4111 2222 3333 4444|4111222233334444|value="321"|[>"' ]321[<"' ]/,
      'neither is anywhere in the page',
    );
  },
);

t.test(
  'in Chromium: the landing page, /fidelidad and the console break lines between words, never inside one, at 390 and 1280 px',
  { skip: browserSkip() },
  async (t) => {
    const browser = await openBrowser(t);
    const server = await startTestServer(t);
    const { createSession, account } = await catalog(server);
    await createSession();
    const page = await browser.newPage();
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      for (const path of ['/', '/fidelidad']) {
        await page.goto(`${server.baseUrl}${path}`);
        t.same(await wordsSplitAcrossLines(page, 'main'), [], `${path} at ${width} px`);
      }
      await page.goto(`${server.baseUrl}/console`);
      if (width === 390) {
        await page.getByLabel('Console token').fill(account.console_token);
        await page.getByRole('button', { name: 'Open', exact: true }).click();
      }
      await page.locator('#trace code.summary').first().waitFor();
      t.same(
        await wordsSplitAcrossLines(page, '#trace code.summary, #progress'),
        [],
        `the console's summaries at ${width} px`,
      );
    }
  },
);

t.test(
  'in Chromium: the Scenarios panel runs a race on the account, shows each step and which side was taken first, and its link opens the run',
  { skip: browserSkip() },
  async (t) => {
    const browser = await openBrowser(t);
    const server = await startTestServer(t);
    server.clock.set(Date.now()); // scenarios sign POS requests with the real time
    const { account } = await catalog(server);
    const page = await browser.newPage();
    await page.goto(`${server.baseUrl}/console`);
    await page.getByLabel('Console token').fill(account.console_token);
    await page.getByRole('button', { name: 'Open' }).click();
    await page.getByLabel('Scenario', { exact: true }).selectOption('race-simultaneous');
    t.match(
      await page.locator('#scenario-about').textContent(),
      /at the same instant/,
      'what it plays, before it runs',
    );
    await page.getByRole('button', { name: 'Run on this account' }).click();
    await page.locator('#scenario-result', { hasText: 'every step held' }).waitFor({ timeout: 15_000 });
    const steps = page.locator('#scenario-steps li');
    t.ok((await steps.count()) >= 7, `${await steps.count()} steps shown`);
    t.match(await steps.first().textContent(), /^given a merchant account/, "the operator's account stood for it");
    t.match(
      await steps.nth(1).textContent(),
      /^passed a terminal — POST \/api\/v1\/merchants\/.+\/pos-terminals → 201/,
    );
    t.match(
      await page.locator('#scenario-race').textContent(),
      /the server took (the merchant's discard|the POS's confirmation) first; it ended (PAID|VOIDED)\./,
    );
    const runId = new URL(page.url()).hash.slice(1);
    t.match(runId, /^run_[0-9a-f]{16}$/, 'the page’s URL names the run');

    // The deep link, opened afresh in the same tab: the run shows again.
    await page.goto('about:blank');
    await page.goto(`${server.baseUrl}/console#${runId}`);
    await page.locator('#scenario-result', { hasText: 'every step held' }).waitFor({ timeout: 10_000 });
    t.ok((await steps.count()) >= 7, 'the steps again');

    await page.getByLabel('Scenario', { exact: true }).selectOption('relay-routing');
    t.equal(await page.getByRole('button', { name: 'Run on this account' }).isDisabled(), true, 'not run from here');
    t.match(await page.locator('#scenario-about').textContent(), /Not run here: .*svc-scenario/);
  },
);

t.test(
  "in Chromium: the payment page's script counts down, disables the form at the due date, and follows leg 2 by GET",
  { skip: browserSkip() },
  async (t) => {
    const browser = await openBrowser(t);
    const server = await startTestServer(t, { accreditationDelayMs: 5000 });
    const { split, post, token } = await catalog(server); // offers card and wallet
    const page = await browser.newPage();
    // The browser's own clock, paused and moved by hand: the countdown and the reload run on its timers only, so a
    // loaded machine cannot tick it between the page's load and a read (it did once, showing 00:00:59).
    const start = Date.now();
    await page.clock.install({ time: start });
    await page.clock.pauseAt(start + 1000);

    const expiring = await post('/api/v1/ext/payment-sessions/buttons', {
      agreement_id: split.agreement_id,
      amount_reference: 5,
      due_date_session: new Date(server.clock.now() + 60_000).toISOString(),
      due_date_reached_behavior: 'expire',
    });
    await page.goto(`${server.baseUrl}/pay/${expiring.session_id}`);
    t.equal(await page.locator('#countdown').textContent(), '00:01:00', 'the time left, from the server clock');
    t.equal(await page.locator('#expired').isVisible(), false);
    await page.clock.runFor(30_000);
    t.equal(await page.locator('#countdown').textContent(), '00:00:30', 'it ticks');
    await page.clock.runFor(31_000);
    t.equal(await page.locator('#countdown').textContent(), 'due date reached');
    t.equal(await page.locator('#expired').isVisible(), true, 'the reason shows at the due date');
    t.equal(await page.getByRole('button', { name: /Pay 5\.00 USD/ }).isDisabled(), true, 'and the form is disabled');
    t.equal(await page.getByLabel('Key', { exact: true }).isDisabled(), true);

    const paying = await post('/api/v1/ext/payment-sessions/buttons', {
      agreement_id: split.agreement_id,
      amount_reference: 6,
    });
    const paid = await server.api.post(`/pay/${paying.session_id}`, {
      json: { method: 'wallet', wallet_id: 'a@b.c', payment_key: '000000' },
    });
    t.equal(paid.status, 200);
    await page.goto(`${server.baseUrl}/pay/${paying.session_id}`);
    t.equal(await page.locator('#accreditation').textContent(), 'scheduled');
    t.match(await page.locator('[data-local]').first().textContent(), /your time$/, 'local times filled in');
    await server.api.post('/control/clock/advance', { json: { ms: 5000 }, token });
    await Promise.all([page.waitForURL(`**/pay/${paying.session_id}`), page.clock.runFor(2000)]);
    await page.locator('#accreditation', { hasText: 'accredited' }).waitFor();
    t.equal(await page.locator('#accreditation').textContent(), 'accredited', 'the page followed leg 2 to its end');
    t.equal(await page.locator('a[data-follow]').count(), 0, 'and stops following there');
  },
);

t.test(
  'in Chromium: a newcomer registers an account from the console and lands on its keys',
  { skip: browserSkip() },
  async (t) => {
    const browser = await openBrowser(t);
    const server = await startTestServer(t);
    const page = await browser.newPage();
    await page.goto(`${server.baseUrl}/console`);
    await page.getByLabel('New email').fill('newcomer@example.com');
    await page.getByLabel('New password').fill('short');
    await page.getByRole('button', { name: 'Register' }).click();
    t.equal(
      await page.getByLabel('New password').evaluate((input) => (input as HTMLInputElement).validity.tooShort),
      true,
      'a password under 8 characters is refused by the form itself',
    );
    await page.getByLabel('New password').fill('a long enough password');
    await page.getByRole('button', { name: 'Register' }).click();
    await page.locator('#keys pre[data-secret="API token"]').waitFor();
    t.match(await page.locator('#keys pre[data-secret="API token"]').textContent(), /^sk_•+/, 'its API token, masked');
    t.match(await page.locator('#progress').textContent(), /✓ Registered an account/);
    t.equal(await page.getByLabel('New password').inputValue(), '', 'the password is not kept in the form');

    // The same email again: the server's words, and the console stays closed.
    const again = await browser.newPage();
    await again.goto(`${server.baseUrl}/console`);
    await again.getByLabel('New email').fill('newcomer@example.com');
    await again.getByLabel('New password').fill('a long enough password');
    await again.getByRole('button', { name: 'Register' }).click();
    await again.locator('#register-result', { hasText: /^Not registered: / }).waitFor();
    t.ok(await again.locator('#sign-in').isVisible(), 'still at the ways in');
  },
);
