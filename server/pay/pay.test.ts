import t from 'tap';
import { startTestServer } from '../testing/test-server.js';
import { catalog } from '../sessions/sessions-testkit.js';

t.test('the page shows the amount, only the agreement\'s methods with their fields, a countdown, the key and the leg-2 choice', async (t) => {
  const server = await startTestServer(t);
  const { split, post } = await catalog(server); // split agreement offers card and wallet
  const session = await post('/api/v1/ext/payment-sessions/buttons', { agreement_id: split.agreement_id, amount_reference: 42.5, description: 'Order <7>', due_date_session: new Date(server.clock.now() + 3_600_000).toISOString() });
  const page = await server.api.get(`/pay/${session.session_id}`);
  t.equal(page.status, 200);
  t.match(page.headers.get('content-type'), /text\/html/);
  t.match(page.text, /42\.50 USD/);
  t.match(page.text, /Order &lt;7&gt;/, 'text is escaped');
  t.match(page.text, /value="card"/);
  t.match(page.text, /value="wallet"/);
  t.notMatch(page.text, /value="transfer"|value="mobile_payment"/, 'only the agreement\'s methods');
  t.match(page.text, /name="card_number"/);
  t.match(page.text, /name="wallet_id"/);
  t.match(page.text, /id="countdown" data-due="\d+"/);
  t.match(page.text, /01:00:00/, 'an hour left');
  t.match(page.text, /<label for="payment_key">/, 'inputs have labels');
  t.match(page.text, /name="leg2" value="accreditation_failed"/);
  t.match(page.text, /name="viewport"/, 'readable on a phone');
  t.equal((await server.api.get('/pay/ses_000000000000000000')).status, 404);
});

t.test('magic keys: 000000 pays and schedules leg 2 as chosen; 111111, 222222 and others fail with their reason; 333333 expires', async (t) => {
  const server = await startTestServer(t, { accreditationDelayMs: 5000 });
  const { createSession, token } = await catalog(server); // plain agreement offers transfer
  const pay = (id: string, fields: Record<string, string>) =>
    server.api.post(`/pay/${id}`, { raw: new URLSearchParams({ method: 'transfer', bank: 'Bank', account_number: '123', ...fields }).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  const read = async (id: string) => (await server.api.get(`/payment-sessions/${id}`, { token })).body;

  const paid = await createSession();
  const page = await pay(paid.session_id, { payment_key: '000000', leg2: 'accreditation_failed' });
  t.equal(page.status, 200);
  t.match(page.text, /Payment accepted/);
  t.match(await read(paid.session_id), { status: 'paid', accreditation: { status: 'scheduled' } });
  await server.api.post('/control/clock/advance', { json: { ms: 5000 }, token });
  t.equal((await read(paid.session_id)).accreditation.status, 'failed', 'leg 2 ended as chosen on the page');

  for (const [key, reason] of [['111111', 'insufficient_funds'], ['222222', 'rejected_by_issuer'], ['999999', 'invalid_key']] as const) {
    const s = await createSession();
    const json = await server.api.post(`/pay/${s.session_id}`, { json: { method: 'transfer', bank: 'B', account_number: '1', payment_key: key } });
    t.same(json.body, { session_id: s.session_id, status: 'failed', outcome: 'failed', reason, accreditation: 'none' }, key);
    t.match(await read(s.session_id), { status: 'failed', failure_reason: reason });
  }
  const expiring = await createSession();
  t.match((await pay(expiring.session_id, { payment_key: '333333' })).text, /expired/);
  t.equal((await read(expiring.session_id)).status, 'expired');
});

t.test('the page refuses a method the agreement does not offer, missing fields, and a session no longer pending', async (t) => {
  const server = await startTestServer(t);
  const { createSession } = await catalog(server);
  const s = await createSession();
  const wrongMethod = await server.api.post(`/pay/${s.session_id}`, { json: { method: 'card', card_holder: 'A', card_number: '4111', card_expiry: '1/29', card_cvv: '1', payment_key: '000000' } });
  t.equal(wrongMethod.status, 400);
  t.match(wrongMethod.body.message, /transfer/);
  const missing = await server.api.post(`/pay/${s.session_id}`, { raw: 'method=transfer&payment_key=000000', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  t.equal(missing.status, 400);
  t.match(missing.text, /role="alert"[^>]*>fill in: Bank, Account number/);
  await server.api.post(`/pay/${s.session_id}`, { json: { method: 'transfer', bank: 'B', account_number: '1', payment_key: '000000' } });
  const again = await server.api.post(`/pay/${s.session_id}`, { json: { method: 'transfer', bank: 'B', account_number: '1', payment_key: '000000' } });
  t.equal(again.status, 409);
  t.equal(again.body.code, 'SESSION_NOT_PAYABLE');
  t.match((await server.api.get(`/pay/${s.session_id}`)).text, /This payment is paid/);
});
