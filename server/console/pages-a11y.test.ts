import t, { type Test } from 'tap';
import type { Page } from 'playwright-core';
import { axeViolations, browserSkip, openBrowser } from '../testing/browser.js';
import { startTestServer } from '../testing/test-server.js';
import { catalog } from '../sessions/sessions-testkit.js';

// axe-core's WCAG 2.1 A and AA rules over every page a person sees: the
// payment page (each method, each result), the console (logged in, with
// events, a session and an event open), /fidelidad and the landing page,
// in both colour schemes, on a laptop and on a phone. The goal is 0.

const sizes = [
  { name: '1280×900', width: 1280, height: 900 },
  { name: '390×844', width: 390, height: 844 },
] as const;
const schemes = ['light', 'dark'] as const;

async function everyWay(t: Test, page: Page, what: string, prepare: () => Promise<void>) {
  for (const size of sizes) {
    for (const colorScheme of schemes) {
      await page.setViewportSize({ width: size.width, height: size.height });
      await page.emulateMedia({ colorScheme });
      await prepare();
      t.same(await axeViolations(page), [], `${what}, ${colorScheme}, ${size.name}: no violations`);
      // Usable on a phone: the page itself never scrolls sideways (wide tables scroll inside their own region).
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      const wide =
        overflow <= 0
          ? []
          : await page.evaluate(() =>
              [...document.querySelectorAll('body *')]
                .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth)
                .slice(0, 3)
                .map((e) => `${e.tagName}#${e.id}.${e.className}`),
            );
      t.ok(
        overflow <= 0,
        `${what}, ${colorScheme}, ${size.name}: no sideways scroll of the page (${overflow} px${wide.length ? `: ${wide.join(', ')}` : ''})`,
      );
    }
  }
}

t.test(
  'the payment page for each method and each result, /fidelidad and the landing page: no axe violations',
  { skip: browserSkip(), timeout: 180_000 },
  async (t) => {
    const browser = await openBrowser(t);
    const server = await startTestServer(t, { accreditationDelayMs: 5000 });
    const { post, token } = await catalog(server);
    const agreement = await post('/api/v1/ext/agreements', {
      name: 'All methods',
      currency_reference: 'USD',
      split: false,
      payment_methods: ['card', 'transfer', 'mobile_payment', 'wallet'],
    });
    const session = () =>
      post('/api/v1/ext/payment-sessions/buttons', {
        agreement_id: agreement.agreement_id,
        amount_reference: 12.5,
        description: 'Order 7',
        due_date_session: new Date(server.clock.now() + 3_600_000).toISOString(),
      });
    const page = await browser.newPage();

    const pending = await session();
    for (const method of ['Card', 'Bank transfer', 'Mobile payment', 'Wallet']) {
      await everyWay(t, page, `payment page, ${method}`, async () => {
        await page.goto(`${server.baseUrl}/pay/${pending.session_id}`);
        await page.getByRole('radio', { name: method, exact: true }).check();
      });
    }
    await everyWay(t, page, 'payment page, refused (a field missing)', async () => {
      await page.goto(`${server.baseUrl}/pay/${pending.session_id}`);
      await page.getByRole('radio', { name: 'Wallet', exact: true }).check();
      await page.getByLabel('Wallet e-mail or id').fill(' ');
      await page.getByLabel('Key', { exact: true }).fill('000000');
      await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: /^Pay / }).click()]);
    });
    for (const [key, what] of [
      ['000000', 'paid, leg 2 under way'],
      ['111111', 'failed'],
      ['333333', 'expired'],
    ] as const) {
      const s = await session();
      await page.goto(`${server.baseUrl}/pay/${s.session_id}`);
      await page.getByRole('radio', { name: 'Bank transfer', exact: true }).check();
      await page.getByLabel('Bank', { exact: true }).fill('Demo');
      await page.getByLabel('Account number').fill('123');
      await page.getByLabel('Key', { exact: true }).fill(key);
      await Promise.all([
        page.waitForURL(`**/pay/${s.session_id}`),
        page.getByRole('button', { name: /^Pay / }).click(),
      ]);
      const result = page.url();
      await everyWay(t, page, `result page, ${what}`, async () => {
        if (page.url() !== result) await page.goto(result);
      });
      if (key === '000000') {
        await server.api.post('/control/clock/advance', { json: { ms: 5000 }, token });
        await everyWay(t, page, 'result page, accredited', () =>
          page.goto(`${server.baseUrl}/pay/${s.session_id}`).then(() => undefined),
        );
      }
    }
    await everyWay(t, page, '/fidelidad', () => page.goto(`${server.baseUrl}/fidelidad`).then(() => undefined));
    await everyWay(t, page, 'the landing page', () => page.goto(`${server.baseUrl}/`).then(() => undefined));
  },
);

t.test(
  'the console, logged in with events, a session and an event open: no axe violations',
  { skip: browserSkip(), timeout: 180_000 },
  async (t) => {
    const browser = await openBrowser(t);
    const server = await startTestServer(t);
    const { createSession, account, token } = await catalog(server);
    const session = await createSession({
      webhook_url: `${server.baseUrl}/console/hooks/${account.account_id}/captura`,
    });
    await server.api.post(`/control/sessions/${session.session_id}/outcome`, {
      json: { leg: 1, outcome: 'paid' },
      token,
    });
    const page = await browser.newPage();
    await page.goto(`${server.baseUrl}/console`);
    await page.getByLabel('Console token').fill(account.console_token);
    await page.getByRole('button', { name: 'Open' }).click();
    await page.locator('#trace tr[data-type="webhook.emitted"]').first().waitFor();
    await page.getByRole('button', { name: `Open session ${session.session_id}` }).click();
    await page.locator('#session-panel:not([hidden])').waitFor();
    await page
      .getByRole('button', { name: /^Details of webhook\.emitted/ })
      .first()
      .click();
    await page.locator('#event-panel:not([hidden])').waitFor();
    await everyWay(t, page, 'console', async () => undefined);
  },
);
