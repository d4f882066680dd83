import { request } from 'node:https';
import t, { type Test } from 'tap';
import { seal } from '../../protocol/nexo/crypto.js';
import { terminalTls } from './certificates.js';
import { listenNexo } from './nexo-listener.js';
import { NexoTerminal } from './nexo-terminal.js';

// What the listener answers to what is not a request it can work: the
// questions of Adyen's libraries' issues (a notification body where a
// request belongs, a wrong key, no API key), each a clear 4xx, and the
// terminal serving on after each.

const POIID = 'V400m-324688179';
const key = { keyIdentifier: 'K1', keyVersion: 1, passphrase: 'listener passphrase' };

async function listener(t: Test) {
  const tls = terminalTls(t.testdir(), POIID, '127.0.0.1');
  const listening = await listenNexo('127.0.0.1', 0, {
    terminal: new NexoTerminal({ poiid: POIID, cardDelayMs: 0 }),
    key,
    apiKey: 'the-api-key',
    tls,
  });
  t.teardown(() => listening.close());
  const post = (path: string, body: string, headers: Record<string, string> = {}, method = 'POST') =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const sent = request(
        {
          host: '127.0.0.1',
          port: listening.address.port,
          path,
          method,
          ca: tls.ca,
          checkServerIdentity: () => undefined,
          headers: { 'content-type': 'application/json', ...headers },
        },
        (response) => {
          let text = '';
          response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
        },
      );
      sent.on('error', reject);
      sent.end(body);
    });
  return { post };
}

const header = (category: string, serviceId = 'S1') => ({
  ProtocolVersion: '3.0',
  MessageClass: 'Service',
  MessageCategory: category,
  MessageType: 'Request',
  SaleID: 'ECR',
  ServiceID: serviceId,
  POIID,
});

t.test('what is not a request: 4xx with the reason, never a 5xx', async (t) => {
  const { post } = await listener(t);
  const notJson = await post('/nexo', '{');
  t.equal(notJson.status, 400);
  t.match(notJson.body, /the body is not JSON/);
  const notification = await post('/nexo', JSON.stringify({ SaleToPOIResponse: { MessageHeader: header('Payment') } }));
  t.equal(notification.status, 400);
  t.match(notification.body, /the body is a SaleToPOIResponse, where a SaleToPOIRequest was expected/);
  t.equal((await post('/elsewhere', '{}')).status, 404);
  t.equal((await post('/nexo', '', {}, 'GET')).status, 405);
  const noBody = await post('/nexo/', JSON.stringify({ SaleToPOIRequest: { MessageHeader: header('Payment') } }));
  t.equal(noBody.status, 200, 'a header without its body: a MessageFormat response');
  t.match(JSON.parse(noBody.body), {
    SaleToPOIResponse: { PaymentResponse: { Response: { ErrorCondition: 'MessageFormat' } } },
  });
});

t.test('a wrong key: crypto error (3); then the right key works', async (t) => {
  const { post } = await listener(t);
  const plaintext = JSON.stringify({ SaleToPOIRequest: { MessageHeader: header('Diagnosis'), DiagnosisRequest: {} } });
  const wrong = await post(
    '/nexo',
    JSON.stringify({ SaleToPOIRequest: seal(header('Diagnosis'), plaintext, { ...key, passphrase: 'nope' }) }),
  );
  t.equal(wrong.status, 400);
  t.same(JSON.parse(wrong.body), { errors: ['Nexo Service: crypto error (3)'], ServiceID: '-NULL-' });
  const right = await post(
    '/nexo',
    JSON.stringify({ SaleToPOIRequest: seal(header('Diagnosis', 'S2'), plaintext, key) }),
  );
  t.equal(right.status, 200);
  t.ok(JSON.parse(right.body).SaleToPOIResponse.NexoBlob, 'answered encrypted');
});

t.test('the cloud shape wants its X-API-Key', async (t) => {
  const { post } = await listener(t);
  const body = JSON.stringify({ SaleToPOIRequest: { MessageHeader: header('Diagnosis'), DiagnosisRequest: {} } });
  t.equal((await post('/sync', body)).status, 401);
  t.equal((await post('/sync', body, { 'x-api-key': 'wrong' })).status, 401);
  const ok = await post('/sync', body, { 'x-api-key': 'the-api-key' });
  t.equal(ok.status, 200);
  t.match(JSON.parse(ok.body), { SaleToPOIResponse: { DiagnosisResponse: { Response: { Result: 'Success' } } } });
});

t.test('an envelope of the wrong shape is answered as a wrong key, never a 5xx (a fuzz found six)', async (t) => {
  const { post } = await listener(t);
  const plaintext = JSON.stringify({ SaleToPOIRequest: { MessageHeader: header('Diagnosis'), DiagnosisRequest: {} } });
  const sealed = seal(header('Diagnosis'), plaintext, key);
  const trailer = sealed.SecurityTrailer as unknown as Record<string, unknown>;
  const bent: Array<[string, Record<string, unknown>]> = [];
  for (const field of ['Nonce', 'Hmac', 'KeyIdentifier', 'KeyVersion', 'AdyenCryptoVersion'])
    for (const wrong of [12345, null, { nested: true }, ['x'], true])
      bent.push([
        `SecurityTrailer.${field} ${JSON.stringify(wrong)}`,
        { ...sealed, SecurityTrailer: { ...trailer, [field]: wrong } },
      ]);
  for (const wrong of [12345, null, { nested: true }, ['x'], ''])
    bent.push([`NexoBlob ${JSON.stringify(wrong)}`, { ...sealed, NexoBlob: wrong }]);
  for (const wrong of [12345, null, 'text', ['x']])
    bent.push([`SecurityTrailer ${JSON.stringify(wrong)}`, { ...sealed, SecurityTrailer: wrong }]);
  bent.push(['no SecurityTrailer', { MessageHeader: sealed.MessageHeader, NexoBlob: sealed.NexoBlob }]);
  for (const [what, envelope] of bent) {
    const answer = await post('/nexo', JSON.stringify({ SaleToPOIRequest: envelope }));
    t.equal(answer.status, 400, `${what}: 400`);
    t.same(
      JSON.parse(answer.body),
      { errors: ['Nexo Service: crypto error (3)'], ServiceID: '-NULL-' },
      `${what}: the terminal's words`,
    );
  }
  const right = await post(
    '/nexo',
    JSON.stringify({ SaleToPOIRequest: seal(header('Diagnosis', 'S9'), plaintext, key) }),
  );
  t.equal(right.status, 200, 'and the terminal serves on');
});
