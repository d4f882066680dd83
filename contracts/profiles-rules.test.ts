import type { OpenAPIV3_1 } from 'openapi-types';
import t from 'tap';
import { documentFor, interfaceDocument, listedOperations, oursOnlyOperations, profiles } from './profiles.js';

// What the interface profile takes out of a document, on a small document
// made for the purpose (so each rule is seen alone): the marks of what is
// ours, closed objects, and the success answers the interface leaves open.

const json = (schema: unknown) => ({ 'application/json': { schema } });
const doc = {
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  paths: {
    '/plain': {
      get: {
        operationId: 'plain',
        responses: {
          '200': {
            description: 'ok',
            content: json({
              type: 'object',
              additionalProperties: false,
              required: ['a', 'b'],
              'x-ours-required': ['b'],
              properties: {
                a: { type: 'string', pattern: '^ses_', 'x-ours': ['pattern'] },
                b: { type: 'string' },
                c: { type: 'object', additionalProperties: { type: 'string' } },
              },
            }),
          },
          '404': { description: 'not found' },
        },
      },
    },
    '/mock': {
      get: {
        operationId: 'mock',
        responses: {
          '200': {
            description: 'a mock',
            'x-ours': true,
            content: { ...json({ type: 'object', required: ['m'] }), 'text/plain': { schema: { type: 'string' } } },
          },
          '204': { description: 'no body', 'x-ours': true },
        },
      },
    },
    '/ours': { get: { operationId: 'ourOwn', 'x-ours': true, responses: { '200': { description: 'ok' } } } },
    '/mixed': {
      get: { operationId: 'mixedOurs', 'x-ours': true, responses: { '200': { description: 'ok' } } },
      post: { operationId: 'mixedKept', responses: { '201': { description: 'made' } } },
    },
    '/resend': {
      post: {
        operationId: 'resendWebhook',
        responses: {
          '202': { description: 'queued', content: json({ type: 'object' }) },
          '404': { description: 'nf' },
        },
      },
    },
    '/pay': {
      post: {
        operationId: 'payPaymentPage',
        responses: { '200': { description: 'page' }, '303': { description: 'see' }, '400': { description: 'bad' } },
      },
    },
    '/fields': {
      post: {
        operationId: 'fields',
        requestBody: {
          content: json({
            type: 'object',
            required: ['url', 'x'],
            'x-ours-properties': ['url'],
            properties: { url: { type: 'string' }, x: { type: 'string' } },
          }),
        },
        responses: { '200': { description: 'ok' } },
      },
    },
    '/relay': {
      get: {
        operationId: 'relay',
        'x-ours-statuses': ['426'],
        responses: { '101': { description: 'up' }, '426': { description: 'plain GET' } },
      },
    },
    '/self': { get: { operationId: 'self', 'x-listing-optional': true, responses: { '200': { description: 'doc' } } } },
    '/alias': { get: { operationId: 'selfAlias', 'x-alias-of': 'self', responses: { '200': { description: 'doc' } } } },
  },
  components: {
    schemas: {
      Closed: { type: 'object', additionalProperties: false },
      Open: { type: 'object', additionalProperties: true, readOnly: false },
      Listed: { type: 'array', items: [{ type: 'string', 'x-ours': ['type'] }] },
    },
    responses: {
      Mock: { description: 'm', 'x-ours': true, content: json({ type: 'string' }) },
      Plain: { description: 'p', content: json({ type: 'string', 'x-ours': ['type'] }) },
    },
  },
} as unknown as OpenAPIV3_1.Document;

const loose = interfaceDocument(doc) as unknown as {
  paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
  components: { schemas: unknown; responses: unknown };
};
const response = (path: string, method: string, status: string) => loose.paths[path]![method]!.responses[status];

t.test(
  'a schema loses its marked keywords, its marked required fields and its closedness; the rest stays',
  async (t) => {
    t.same(response('/plain', 'get', '200'), {
      description: 'ok',
      content: json({
        type: 'object',
        required: ['a'],
        'x-ours-required': ['b'],
        properties: {
          a: { type: 'string', 'x-ours': ['pattern'] },
          b: { type: 'string' },
          c: { type: 'object', additionalProperties: { type: 'string' } },
        },
      }),
    });
    t.same(response('/plain', 'get', '404'), { description: 'not found' });
    t.same(
      loose.components.schemas,
      {
        Closed: { type: 'object' },
        Open: { type: 'object', additionalProperties: true, readOnly: false },
        Listed: { type: 'array', items: [{ 'x-ours': ['type'] }] },
      },
      'arrays of schemas too',
    );
  },
);

t.test('a response whose body is ours takes any media type and any body, or none', async (t) => {
  t.same(response('/mock', 'get', '200'), { description: 'a mock', 'x-ours': true, 'x-any-body': true });
  t.same(response('/mock', 'get', '204'), { description: 'no body', 'x-ours': true, 'x-any-body': true });
  t.same(loose.components.responses, {
    Mock: { description: 'm', 'x-ours': true, 'x-any-body': true },
    Plain: { description: 'p', content: json({ 'x-ours': ['type'] }) },
  });
});

t.test('fields of ours leave the schema, required or not: the interface has nothing of them to probe', async (t) => {
  const body = (
    loose.paths['/fields']!.post as unknown as { requestBody: { content: Record<string, { schema: unknown }> } }
  ).requestBody.content['application/json']!.schema;
  t.same(body, {
    type: 'object',
    required: ['x'],
    'x-ours-properties': ['url'],
    properties: { x: { type: 'string' } },
  });
});

t.test('answers of ours leave the operation, and any other answer stands in their place', async (t) => {
  t.same(loose.paths['/relay']!.get!.responses, {
    '101': { description: 'up' },
    default: { description: 'Left open by the interface (ours: 426).', 'x-any-body': true },
  });
});

t.test(
  "a served document must list the interface's operations, but for the document itself and the aliases",
  async (t) => {
    const listed = listedOperations(doc).map((entry) => entry.operationId);
    t.ok(listed.includes('plain') && listed.includes('relay'));
    t.notOk(listed.includes('self'), 'x-listing-optional');
    t.notOk(listed.includes('selfAlias'), 'an alias');
    t.notOk(listed.includes('ourOwn'), 'ours alone');
  },
);

t.test('operations of ours go, and a path left with none goes with them', async (t) => {
  t.same(Object.keys(loose.paths).sort(), [
    '/alias',
    '/fields',
    '/mixed',
    '/mock',
    '/pay',
    '/plain',
    '/relay',
    '/resend',
    '/self',
  ]);
  t.same(Object.keys(loose.paths['/mixed']!), ['post']);
  t.same([...oursOnlyOperations(doc)].sort(), ['mixedOurs', 'ourOwn']);
});

t.test(
  'an operation whose success the interface leaves open answers any 2xx with any body; its errors stay; the payment page may redirect',
  async (t) => {
    const open = {
      description: 'Success: the status and body are left open by the interface (open choice success-status).',
      'x-any-body': true,
    };
    t.same(loose.paths['/resend']!.post!.responses, { '404': { description: 'nf' }, '2XX': open });
    t.same(loose.paths['/pay']!.post!.responses, {
      '400': { description: 'bad' },
      '2XX': open,
      '3XX': { description: 'A redirect to the result, as a form post may answer.', 'x-any-body': true },
    });
    t.same(Object.keys(loose.paths['/plain']!.get!.responses), ['200', '404'], 'other operations keep their statuses');
  },
);

t.test('the profiles: strict is the document itself, interface the document above', async (t) => {
  t.same(profiles, ['interface', 'strict']);
  t.equal(documentFor('strict', doc), doc);
  t.same(documentFor('interface', doc), interfaceDocument(doc));
  t.not(documentFor('interface', doc), doc);
  t.same(
    doc.paths!['/plain']!.get!.responses!['200'],
    (doc.paths!['/plain']!.get!.responses as Record<string, unknown>)['200'],
    'the original is left as it was',
  );
  t.ok(JSON.stringify(doc).includes('"additionalProperties":false'));
});
