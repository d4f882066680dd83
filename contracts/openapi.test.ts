import type { OpenAPIV3_1 } from 'openapi-types';
import t from 'tap';
import { listOperations, openApiDocument } from './openapi.js';
import { ResponseValidator } from './response-validator.js';
import { resolveRef, SchemaValidator } from './validator.js';

t.test('every operation has a unique operationId, a 2xx answer and declared security', async (t) => {
  const operations = listOperations();
  const ids = operations.map((entry) => entry.operationId);
  t.same([...new Set(ids)], ids, 'operationIds are unique');
  for (const entry of operations) {
    const statuses = Object.keys(entry.operation.responses ?? {});
    // receiveFailWebhook: the default receiver "fail" answers 500 on purpose, always.
    if (entry.operationId !== 'receiveFailWebhook')
      t.ok(
        statuses.some((status) => status.startsWith('2') || status === '101'),
        `${entry.operationId} documents a success (or 101 for the WebSocket upgrade)`,
      );
    t.ok(Array.isArray(entry.operation.security), `${entry.operationId} states its security, even when none`);
    if (entry.operation.requestBody)
      t.ok(statuses.includes('400') && statuses.includes('413'), `${entry.operationId} documents its body errors`);
    if ((entry.operation.security ?? []).length > 0)
      t.ok(statuses.includes('401'), `${entry.operationId} documents 401`);
  }
});

t.test('every schema of the document compiles in strict mode and its examples validate', async (t) => {
  const validator = new SchemaValidator(openApiDocument);
  for (const [name, schema] of Object.entries(openApiDocument.components?.schemas ?? {})) {
    t.doesNotThrow(() => validator.compile({ $ref: `#/components/schemas/${name}` }), name);
    for (const example of (schema as { examples?: unknown[] }).examples ?? []) {
      t.same(validator.check(schema, example), [], `${name} example validates`);
    }
  }
  for (const entry of listOperations()) {
    for (const [status, response] of Object.entries(entry.operation.responses ?? {})) {
      const schema = resolveRef<OpenAPIV3_1.ResponseObject>(openApiDocument, response).content?.['application/json']
        ?.schema;
      if (schema) t.doesNotThrow(() => validator.compile(schema), `${entry.operationId} ${status}`);
    }
  }
});

t.test('response object schemas are closed, so a leaked field fails validation', async (t) => {
  const open: string[] = [];
  const visit = (schema: unknown, where: string): void => {
    if (!schema || typeof schema !== 'object') return;
    const s = schema as Record<string, unknown>;
    if (s.type === 'object' && s.properties && s.additionalProperties !== false) open.push(where);
    for (const [key, inner] of Object.entries(s)) {
      if (key === 'properties')
        for (const [prop, sub] of Object.entries(inner as object)) visit(sub, `${where}.${prop}`);
      else if (key === 'items' || key === 'additionalProperties') visit(inner, `${where}[]`);
      else if (key === 'anyOf' || key === 'oneOf' || key === 'allOf')
        (inner as unknown[]).forEach((sub, i) => visit(sub, `${where}/${key}/${i}`));
    }
  };
  // Open on purpose, each with its reason.
  const openByDesign: Record<string, string> = {
    TraceEntry:
      'a trace entry carries the fields of its type (INTERFACE.md §7, §8); the schema declares the common ones',
    PayRequest: 'each payment method adds its own fields (strings); the schema declares the common ones',
  };
  for (const [name, schema] of Object.entries(openApiDocument.components?.schemas ?? {}))
    if (!(name in openByDesign)) visit(schema, name);
  t.same(open, [], 'no object schema with properties leaves additionalProperties open');
});

t.test('the response validator refuses what the document does not allow', async (t) => {
  const validator = new ResponseValidator();
  const json = (status: number, body: unknown, headers: Record<string, string> = {}) => ({
    status,
    headers: new Headers({ 'content-type': 'application/json; charset=utf-8', ...headers }),
    text: JSON.stringify(body),
  });
  const health = { method: 'GET', path: '/health' };
  t.same(
    validator.check({ ...health, ...json(200, { status: 'ok', store: 'embedded', uptime_s: 1, version: '1' }) }),
    [],
  );
  t.match(
    validator.check({
      ...health,
      ...json(200, { status: 'ok', store: 'embedded', uptime_s: 1, version: '1', leaked: 'x' }),
    }),
    [{ pointer: '/leaked' }],
    'an undeclared field',
  );
  t.match(
    validator.check({ ...health, ...json(200, { status: 'ok' }) }),
    [{ pointer: '/store' }, { pointer: '/uptime_s' }, { pointer: '/version' }],
    'missing fields',
  );
  t.match(
    validator.check({ ...health, ...json(418, {}) }),
    [{ expected: /documented statuses/ }],
    'an undocumented status',
  );
  t.match(
    validator.check({ ...health, status: 200, headers: new Headers({ 'content-type': 'text/html' }), text: '<p>' }),
    [{ pointer: 'header:content-type' }],
    'a wrong media type',
  );
  const refresh = { method: 'POST', path: '/api/svcpagos/refresh-token' };
  const tokens = {
    token: `lt_${'a'.repeat(64)}`,
    refreshToken: `rt_${'b'.repeat(64)}`,
    expires_in: 3600,
    console_token: `ct_${'c'.repeat(64)}`,
  };
  t.match(
    validator.check({ ...refresh, ...json(200, tokens) }),
    [{ pointer: 'header:x-svc-sim', expected: /present/ }],
    'a missing required header',
  );
  t.same(validator.check({ ...refresh, ...json(200, tokens, { 'x-svc-sim': 'fuera-de-contrato' }) }), []);
  t.match(
    validator.check({ method: 'GET', path: '/nowhere', ...json(200, {}) }),
    [{ expected: /404/ }],
    'an undocumented path may only answer 404',
  );
  t.match(
    validator.check({ method: 'PATCH', path: '/health', ...json(405, { message: 'm', code: 'METHOD_NOT_ALLOWED' }) }),
    [{ pointer: 'header:allow' }],
    '405 needs Allow',
  );
});

t.test('a 204, a 304 and an answer to HEAD need no content type, whatever a served document declares', async (t) => {
  // An independent implementation's served document declares content for every answer, its 204 included.
  const served = {
    openapi: '3.1.0',
    info: { title: 'theirs', version: '1' },
    paths: {
      '/api/v1/ext/stops/{id}': {
        delete: {
          responses: {
            '204': { description: 'gone', content: { 'application/json': { schema: { type: 'object' } } } },
          },
        },
      },
      '/health': {
        get: {
          responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } } },
        },
        head: {
          responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } } },
        },
      },
    },
  } as unknown as OpenAPIV3_1.Document;
  const validator = new ResponseValidator(served, { strict: false });
  const empty = (method: string, path: string, status: number) => ({
    method,
    path,
    status,
    headers: new Headers(),
    text: '',
  });
  t.same(validator.check(empty('DELETE', '/api/v1/ext/stops/s-1', 204)), [], 'a 204 without a content type');
  t.same(validator.check(empty('HEAD', '/health', 200)), [], 'an answer to HEAD');
  t.match(
    validator.check({ ...empty('DELETE', '/api/v1/ext/stops/s-1', 204), text: '{}' }),
    [{ expected: /no content/ }],
    'content where HTTP forbids it is still reported',
  );
});
