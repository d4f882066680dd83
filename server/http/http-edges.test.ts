import { request as httpRequest } from 'node:http';
import t from 'tap';
import { registerAccount, startTestServer } from '../testing/test-server.js';

t.test('an unknown route answers 404 with the error body', async (t) => {
  const { api } = await startTestServer(t);
  const response = await api.get('/no/such/thing');
  t.equal(response.status, 404);
  t.equal(response.body.code, 'NOT_FOUND');
  t.match(response.body.message, /GET \/no\/such\/thing/);
});

t.test('a wrong method on a known path answers 405 with Allow', async (t) => {
  const { api } = await startTestServer(t);
  const response = await api.delete('/console/register');
  t.equal(response.status, 405);
  t.equal(response.body.code, 'METHOD_NOT_ALLOWED');
  t.equal(response.headers.get('allow'), 'POST');
  const options = await api.request('OPTIONS', '/health');
  t.equal(options.status, 204);
  t.equal(options.headers.get('allow'), 'HEAD, GET');
});

t.test('a body over 1 MiB answers 413 whether its length is declared or streamed', async (t) => {
  const { api, baseUrl } = await startTestServer(t);
  const big = JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(1024 * 1024) });
  const declared = await api.post('/console/register', { raw: big, headers: { 'content-type': 'application/json' } });
  t.equal(declared.status, 413);
  t.equal(declared.body.code, 'PAYLOAD_TOO_LARGE');

  // Chunked: no content-length, so the limit is enforced while reading.
  const streamed = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest(
      `${baseUrl}/console/register`,
      { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } },
      (res) => {
        let body = '';
        res
          .setEncoding('utf8')
          .on('data', (chunk) => (body += chunk))
          .on('end', () => resolve({ status: res.statusCode!, body }));
      },
    );
    req.on('error', reject);
    for (let i = 0; i < 20; i += 1) req.write('x'.repeat(64 * 1024));
    req.end();
  });
  t.equal(streamed.status, 413);
  t.equal(JSON.parse(streamed.body).code, 'PAYLOAD_TOO_LARGE');
});

t.test('malformed JSON answers 400 MALFORMED_JSON', async (t) => {
  const { api } = await startTestServer(t);
  const response = await api.post('/console/register', {
    raw: '{"email": ',
    headers: { 'content-type': 'application/json' },
  });
  t.equal(response.status, 400);
  t.equal(response.body.code, 'MALFORMED_JSON');
});

t.test('a body in an undeclared media type answers 415', async (t) => {
  const { api } = await startTestServer(t);
  const response = await api.post('/console/register', { raw: 'email=a', headers: { 'content-type': 'text/plain' } });
  t.equal(response.status, 415);
  t.equal(response.body.code, 'UNSUPPORTED_MEDIA_TYPE');
  t.match(response.body.message, /application\/json/);
});

t.test('invalid bodies answer 400 VALIDATION_FAILED with a JSON pointer per field', async (t) => {
  const { api } = await startTestServer(t);
  const cases: Array<{ name: string; json?: unknown; raw?: string; expect: Array<{ in: string; pointer: string }> }> = [
    { name: 'missing body', raw: '', expect: [{ in: 'body', pointer: '' }] },
    { name: 'not an object', json: [1, 2], expect: [{ in: 'body', pointer: '' }] },
    {
      name: 'missing fields',
      json: {},
      expect: [
        { in: 'body', pointer: '/email' },
        { in: 'body', pointer: '/password' },
      ],
    },
    {
      name: 'wrong types',
      json: { email: 5, password: true },
      expect: [
        { in: 'body', pointer: '/email' },
        { in: 'body', pointer: '/password' },
      ],
    },
    {
      name: 'unknown field',
      json: { email: 'a@example.com', password: '12345678', admin: true },
      expect: [{ in: 'body', pointer: '/admin' }],
    },
    {
      name: 'short password',
      json: { email: 'a@example.com', password: 'short' },
      expect: [{ in: 'body', pointer: '/password' }],
    },
    {
      name: 'not an email',
      json: { email: 'nobody', password: '12345678' },
      expect: [{ in: 'body', pointer: '/email' }],
    },
  ];
  for (const c of cases) {
    const response = await api.post(
      '/console/register',
      c.json !== undefined ? { json: c.json } : { raw: c.raw ?? '', headers: { 'content-type': 'application/json' } },
    );
    t.equal(response.status, 400, c.name);
    t.equal(response.body.code, 'VALIDATION_FAILED', c.name);
    t.match(response.body.details, c.expect, c.name);
  }
  const advance = await api.post('/control/clock/advance', {
    json: { ms: 'soon' },
    token: (await registerAccount(api)).key.token,
  });
  t.equal(advance.status, 400);
  t.same(
    advance.body.details.map((d: { pointer: string }) => d.pointer),
    ['/ms'],
  );
});

t.test('/health answers ok with the store kind, /openapi.json the document', async (t) => {
  const { api } = await startTestServer(t);
  const health = await api.get('/health');
  t.equal(health.status, 200);
  t.match(health.body, { status: 'ok', store: 'embedded', version: String });
  const doc = await api.get('/openapi.json');
  t.equal(doc.body.openapi, '3.1.0');
  t.ok(doc.body.paths['/console/register']);
});

t.test('an unexpected failure answers 500 INTERNAL_ERROR without a stack or the cause', async (t) => {
  const { api, store } = await startTestServer(t);
  const account = await registerAccount(api);
  // Break the store underneath the app: reads still work, writes throw a plain Error.
  const original = store.transact.bind(store);
  store.transact = async () => {
    throw new Error('disk on fire at /secret/path');
  };
  t.teardown(() => {
    store.transact = original;
  });
  const response = await api
    .post('/control/clock/advance', { json: { ms: 1000 }, token: account.key.token })
    .catch((e: Error) => e);
  // 500 is not documented for the operation, so the contract client refuses it; check the raw answer instead.
  t.match((response as Error).message, /status 500/);
  t.notMatch((response as Error).message, /secret\/path|at .*\.ts/);
  t.match((response as Error).message, /INTERNAL_ERROR/);
});
