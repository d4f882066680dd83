import type { OpenAPIV3_1 } from 'openapi-types';
import t from 'tap';
import { openApiDocument } from '../../openapi.js';
import { listedOperations } from '../../profiles.js';
import { Expectations, type FailedExpectation } from '../expectations.js';
import type { ObservedAnswer } from '../recorder.js';
import type { SuiteResponse } from '../suite-client.js';
import { checkServedDocument } from './served-document.js';

// The interface profile judges a served document by what it holds: written
// elsewhere, small, self-contained, with `default` answers or components
// named otherwise, it is not measured against our own schema ids.

/** Every operation of the interface, as another implementation might describe it. */
function documentOf(
  responses: (method: string) => OpenAPIV3_1.ResponsesObject,
  components?: OpenAPIV3_1.ComponentsObject,
): OpenAPIV3_1.Document {
  const paths: OpenAPIV3_1.PathsObject = {};
  for (const { method, path } of listedOperations(openApiDocument))
    paths[path] = { ...paths[path], [method]: { responses: responses(method) } };
  return {
    openapi: '3.1.0',
    info: { title: 'another implementation', version: '1' },
    paths,
    ...(components ? { components } : {}),
  };
}

const served = (doc: unknown): SuiteResponse => ({
  status: 200,
  headers: new Headers({ 'content-type': 'application/json' }),
  text: JSON.stringify(doc),
  body: doc as SuiteResponse['body'],
  request: { method: 'GET', target: '/openapi.json', curl: 'curl …' },
});

const answer = (method: string, path: string, status: number, body: unknown): ObservedAnswer => ({
  method,
  path,
  status,
  headers: new Headers({ 'content-type': 'application/json' }),
  text: JSON.stringify(body),
});

/** Answers of our own server, as the suite would have seen them: a list, a 404 of an undocumented route, a 405. */
const seen: ObservedAnswer[] = [
  answer('GET', '/health', 200, { status: 'ok' }),
  answer('GET', '/no/such/route', 404, { message: 'no route', code: 'NOT_FOUND' }),
  answer('DELETE', '/health', 405, { message: 'not allowed', code: 'METHOD_NOT_ALLOWED' }),
];
seen[2]!.headers.set('allow', 'GET');

function judge(doc: OpenAPIV3_1.Document, answers = seen): FailedExpectation[] {
  const failures: FailedExpectation[] = [];
  const expect = new Expectations(
    (failure) => failures.push(failure),
    'document.served',
    'INTERFACE.md §0',
    () => '',
  );
  checkServedDocument(expect, served(doc), 'interface', answers);
  return failures;
}

const anyJson = { content: { 'application/json': { schema: {} } } };

t.test('a minimal document: every operation with a default answer of any JSON', async (t) => {
  t.same(judge(documentOf(() => ({ default: { description: 'any', ...anyJson } }))), []);
});

t.test('components named otherwise: a Problem for errors, a Thing for the rest, refs into them', async (t) => {
  const doc = documentOf(
    () => ({
      '2XX': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
      default: { $ref: '#/components/responses/Failure' },
    }),
    {
      schemas: {
        Thing: { type: 'object' },
        Problem: {
          type: 'object',
          required: ['message'],
          properties: { message: { $ref: '#/components/schemas/Text' } },
        },
        Text: { type: 'string' },
        Code: { $ref: '#/components/schemas/Problem/properties/message' } as OpenAPIV3_1.SchemaObject,
      },
      responses: {
        Failure: {
          description: 'an error',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Problem' } } },
        },
      },
    },
  );
  t.same(judge(doc), [], 'no reference to our schema ids; the 404 judged by the interface error body');
});

t.test(
  'still judged: an answer its own document refuses, and an undocumented route answered without the error body',
  async (t) => {
    const strictThing = documentOf(() => ({
      default: { description: 'x', content: { 'application/json': { schema: { type: 'array', items: {} } } } },
    }));
    const failures = judge(strictThing, [answer('GET', '/health', 200, { status: 'ok' })]);
    t.match(failures, [{ check: 'document.served', got: /1 not, e\.g\. GET \/health 200/ }]);
    const badError = judge(
      documentOf(() => ({ default: { description: 'any', ...anyJson } })),
      [answer('GET', '/no/such/route', 404, { oops: true })],
    );
    t.match(badError, [{ got: /GET \/no\/such\/route 404: \/message? ?|is required|expected/ }]);
  },
);
