import t from 'tap';
import { startTestServer } from '../testing/test-server.js';
import { catalog } from '../sessions/sessions-testkit.js';

t.test(
  "the page shows the amount, only the agreement's methods with their fields, a countdown, the key and the leg-2 choice",
  async (t) => {
    const server = await startTestServer(t);
    const { split, post } = await catalog(server); // split agreement offers card and wallet
    const session = await post('/api/v1/ext/payment-sessions/buttons', {
      agreement_id: split.agreement_id,
      amount_reference: 42.5,
      description: 'Order <7>',
      due_date_session: new Date(server.clock.now() + 3_600_000).toISOString(),
    });
    const page = await server.api.get(`/pay/${session.session_id}`);
    t.equal(page.status, 200);
    t.match(page.headers.get('content-type'), /text\/html/);
    t.match(page.text, /42\.50 USD/);
    t.match(page.text, /Order &lt;7&gt;/, 'text is escaped');
    t.match(page.text, /value="card"/);
    t.match(page.text, /value="wallet"/);
    t.notMatch(page.text, /value="transfer"|value="mobile_payment"/, "only the agreement's methods");
    t.match(page.text, /name="card\.card_number"/);
    t.match(page.text, /name="wallet\.wallet_id"/);
    t.match(page.text, /id="countdown" data-due="\d+"/);
    t.match(page.text, /01:00:00/, 'an hour left');
    t.match(page.text, /<label for="payment_key">/, 'inputs have labels');
    t.match(page.text, /name="leg2" value="accreditation_failed"/);
    t.match(page.text, /name="viewport"/, 'readable on a phone');
    t.equal((await server.api.get('/pay/ses_000000000000000000')).status, 404);
  },
);

t.test(
  'magic keys: 000000 pays and schedules leg 2 as chosen; 111111, 222222 and others fail with their reason; 333333 expires',
  async (t) => {
    const server = await startTestServer(t, { accreditationDelayMs: 5000 });
    const { createSession, token } = await catalog(server); // plain agreement offers transfer
    const pay = (id: string, fields: Record<string, string>) =>
      server.api.post(`/pay/${id}`, {
        raw: new URLSearchParams({ method: 'transfer', bank: 'Bank', account_number: '123', ...fields }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
    const read = async (id: string) => (await server.api.get(`/payment-sessions/${id}`, { token })).body;

    const paid = await createSession();
    const page = await pay(paid.session_id, { payment_key: '000000', leg2: 'accreditation_failed' });
    t.equal(page.status, 200);
    t.match(page.text, /Payment accepted/);
    t.match(await read(paid.session_id), { status: 'paid', accreditation: { status: 'scheduled' } });
    await server.api.post('/control/clock/advance', { json: { ms: 5000 }, token });
    t.equal((await read(paid.session_id)).accreditation.status, 'failed', 'leg 2 ended as chosen on the page');

    for (const [key, reason] of [
      ['111111', 'insufficient_funds'],
      ['222222', 'rejected_by_issuer'],
      ['999999', 'invalid_key'],
    ] as const) {
      const s = await createSession();
      const json = await server.api.post(`/pay/${s.session_id}`, {
        json: { method: 'transfer', bank: 'B', account_number: '1', payment_key: key },
      });
      t.same(
        json.body,
        { session_id: s.session_id, status: 'failed', outcome: 'failed', reason, accreditation: 'none' },
        key,
      );
      t.match(await read(s.session_id), { status: 'failed', failure_reason: reason });
    }
    const expiring = await createSession();
    t.match((await pay(expiring.session_id, { payment_key: '333333' })).text, /expired/);
    t.equal((await read(expiring.session_id)).status, 'expired');
  },
);

t.test(
  'the page refuses a method the agreement does not offer, missing fields, and a session no longer pending',
  async (t) => {
    const server = await startTestServer(t);
    const { createSession } = await catalog(server);
    const s = await createSession();
    const wrongMethod = await server.api.post(`/pay/${s.session_id}`, {
      json: {
        method: 'card',
        card_holder: 'A',
        card_number: '4111',
        card_expiry: '1/29',
        card_cvv: '1',
        payment_key: '000000',
      },
    });
    t.equal(wrongMethod.status, 400);
    t.match(wrongMethod.body.message, /transfer/);
    const missing = await server.api.post(`/pay/${s.session_id}`, {
      raw: 'method=transfer&payment_key=000000',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    t.equal(missing.status, 400);
    t.match(missing.text, /role="alert"[^>]*>fill in: Bank, Account number/);
    await server.api.post(`/pay/${s.session_id}`, {
      json: { method: 'transfer', bank: 'B', account_number: '1', payment_key: '000000' },
    });
    const again = await server.api.post(`/pay/${s.session_id}`, {
      json: { method: 'transfer', bank: 'B', account_number: '1', payment_key: '000000' },
    });
    t.equal(again.status, 409);
    t.equal(again.body.code, 'SESSION_NOT_PAYABLE');
    t.match((await server.api.get(`/pay/${s.session_id}`)).text, /This payment has been made/);
  },
);

const formPost = (server: Awaited<ReturnType<typeof startTestServer>>, id: string, fields: Record<string, string>) =>
  server.api.post(`/pay/${id}`, {
    raw: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });

t.test(
  "without JavaScript every method can pay: all fields are in the page, none required by the browser, the server checks the chosen method's",
  async (t) => {
    const server = await startTestServer(t);
    const { post } = await catalog(server);
    const methods: Record<string, Record<string, string>> = {
      card: {
        'card.card_holder': 'A B',
        'card.card_number': '4111111111111111',
        'card.card_expiry': '12/29',
        'card.card_cvv': '123',
      },
      transfer: { 'transfer.bank': 'Bank', 'transfer.account_number': '123' },
      mobile_payment: { 'mobile_payment.phone': '5550100', 'mobile_payment.document_id': 'X1' },
      wallet: { 'wallet.wallet_id': 'a@example.com' },
    };
    const agreement = await post('/api/v1/ext/agreements', {
      name: 'All methods',
      currency_reference: 'USD',
      split: false,
      payment_methods: Object.keys(methods),
    });
    for (const [method, fields] of Object.entries(methods)) {
      const session = await post('/api/v1/ext/payment-sessions/buttons', {
        agreement_id: agreement.agreement_id,
        amount_reference: 10,
      });
      const page = await server.api.get(`/pay/${session.session_id}`);
      const form = /<form[\s\S]*<\/form>/.exec(page.text)![0];
      t.notMatch(form, /<fieldset[^>]*hidden/, `${method}: no section hidden without the script`);
      t.equal((form.match(/ required/g) ?? []).length, 1, `${method}: only the key is required by the browser`);
      const paid = await formPost(server, session.session_id, {
        method,
        ...fields,
        payment_key: '000000',
        leg2: 'accredited',
      });
      t.equal(paid.status, 200, `${method}: paid by a plain form post`);
      t.match(paid.text, /Payment accepted/);
    }
  },
);

t.test('a refusal keeps the method, what was typed and the leg-2 choice, never the key', async (t) => {
  const server = await startTestServer(t);
  const { split, post } = await catalog(server); // card and wallet
  const session = await post('/api/v1/ext/payment-sessions/buttons', {
    agreement_id: split.agreement_id,
    amount_reference: 10,
  });
  const refused = await formPost(server, session.session_id, {
    method: 'wallet',
    'wallet.wallet_id': '',
    'card.card_holder': 'Typed <name>',
    payment_key: '123456',
    leg2: 'accreditation_failed',
  });
  t.equal(refused.status, 400);
  t.match(refused.text, /role="alert"[^>]*>fill in: Wallet e-mail or id/);
  t.match(refused.text, /value="wallet" checked/, 'the method chosen');
  t.match(refused.text, /name="card\.card_holder"[^>]*value="Typed &lt;name&gt;"/, 'what was typed, escaped');
  t.match(refused.text, /value="accreditation_failed" checked/, 'the leg-2 choice');
  t.notMatch(refused.text, /123456/, 'never the key');
  t.match(refused.text, /id="error-summary" tabindex="-1" autofocus/, 'the reason takes the focus');
});

t.test(
  'a refusal never sends card data back: the card number and the security code come back empty, the other fields kept',
  async (t) => {
    const server = await startTestServer(t);
    const { split, post } = await catalog(server); // card and wallet
    const session = await post('/api/v1/ext/payment-sessions/buttons', {
      agreement_id: split.agreement_id,
      amount_reference: 10,
    });
    // Refused for a missing key, with every card field typed.
    const refused = await formPost(server, session.session_id, {
      method: 'card',
      'card.card_holder': 'Ana Pérez',
      'card.card_number': '4999888877776666',
      'card.card_expiry': '11/31',
      'card.card_cvv': '987',
      payment_key: '',
    });
    t.equal(refused.status, 400);
    t.notMatch(refused.text, /4999888877776666|4999 8888/, 'the typed card number is nowhere in the HTML');
    t.notMatch(refused.text, /value="987"|[>"' ]987[<"' ]/, 'nor the security code');
    t.match(refused.text, /name="card\.card_number"[^>]*value=""/, 'the card number field comes back empty');
    t.match(refused.text, /name="card\.card_cvv"[^>]*value=""/, 'so does the security code');
    t.match(refused.text, /name="card\.card_holder"[^>]*value="Ana Pérez"/, 'the name kept');
    t.match(refused.text, /name="card\.card_expiry"[^>]*value="11\/31"/, 'the expiry kept');
  },
);

t.test('the result page follows leg 2 to its end, with the amount, a way back and local time beside UTC', async (t) => {
  const server = await startTestServer(t, { accreditationDelayMs: 5000 });
  const { createSession, token } = await catalog(server);
  const session = await createSession();
  const paid = await formPost(server, session.session_id, {
    method: 'transfer',
    'transfer.bank': 'B',
    'transfer.account_number': '1',
    payment_key: '000000',
    leg2: 'accreditation_failed',
  });
  t.match(paid.text, /As you chose, the accreditation to the merchant will fail/);
  t.match(paid.text, /under way/);
  t.match(
    paid.text,
    new RegExp(`<a href="/pay/${session.session_id}" data-follow>Check the accreditation again</a>`),
    'the script follows leg 2 by GET (this link, browser.test.ts), and without a script the link does',
  );
  t.match(paid.text, /<script type="module" src="\/pay\/app\.js"><\/script>/, 'the script');
  t.match(
    paid.text,
    /\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC<span data-local="\d+">/,
    'UTC, and a slot for the local time',
  );
  t.match(paid.text, new RegExp(`href="/pay/${session.session_id}"`), 'a way back');
  await server.api.post('/control/clock/advance', { json: { ms: 5000 }, token });
  const after = await server.api.get(`/pay/${session.session_id}`);
  t.match(after.text, /is paid, but the accreditation to the merchant failed/);
  t.match(after.text, / USD/, 'the amount');
  t.notMatch(after.text, /data-follow/, 'no more reloading once leg 2 ended');
});

t.test(
  'an expire session past its due date: the page says so, and the script disables the form at the due date',
  async (t) => {
    const server = await startTestServer(t);
    const { createSession, token } = await catalog(server);
    const session = await createSession({
      due_date_session: new Date(server.clock.now() + 60_000).toISOString(),
      due_date_reached_behavior: 'expire',
    });
    const live = await server.api.get(`/pay/${session.session_id}`);
    t.match(
      live.text,
      /id="expired" class="result bad" role="alert" hidden>The due date has passed/,
      'the reason, ready for the due date',
    );
    t.match(
      live.text,
      /<script type="module" src="\/pay\/app\.js">/,
      'the script disables the form then (browser.test.ts)',
    );
    await server.api.post('/control/clock/advance', { json: { ms: 61_000 }, token });
    t.match((await server.api.get(`/pay/${session.session_id}`)).text, /This payment expired before it was made/);
  },
);
