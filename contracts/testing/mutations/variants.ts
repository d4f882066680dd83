import { openApiDocument } from '../../openapi.js';
import { interfaceDocument, listedOperations, oursOnlyOperations } from '../../profiles.js';
import { ResponseValidator } from '../../response-validator.js';
import { jsonAnswer, type Mutation, type ProxiedAnswer } from '../mutating-proxy.js';
import { is, OUTCOME, rewriteTrace } from './kit.js';
import type { JsonAnswer } from '../../json-answer.js';

// Implementations that break no rule: the interface profile must pass them.

/**
 * Not a broken rule: an implementation that conforms to the interface but
 * makes other choices where the interface leaves them open (extra
 * fields, no created_at on agreements, no description on sessions, no `in`
 * in error details, other mock data, other bodies for the receivers and
 * reset, 400 rather than 415 for another media type, no trace cursor), and
 * serves its own document accordingly. The interface profile must pass it;
 * the strict profile must not.
 */
export const conformingVariant: Mutation = {
  name: 'a conforming implementation with other choices',
  caughtBy: '',
  answer: (request, answer) => {
    let body = jsonAnswer.read(answer);
    if (body === undefined || typeof body !== 'object' || body === null || Array.isArray(body)) return;
    const path = request.url.pathname;
    if (path === '/openapi.json')
      return jsonAnswer.write(
        answer,
        withoutOperationIds({ ...interfaceDocument(openApiDocument), 'x-vendor': 'variant' }),
      );
    if (answer.status === 415)
      return jsonAnswer.write(answer, { message: 'JSON only', code: 'VALIDATION_FAILED' }, 400);
    if (/^\/api\/v1\/ext\/(agreements|partners|split-agreements)$/.test(path)) delete body.created_at;
    if (typeof body.session_id === 'string') delete body.description;
    if (Array.isArray(body.details))
      body.details = body.details.map(({ in: _in, ...rest }: Record<string, unknown>) => rest);
    if (answer.headers['x-svc-sim'] === 'mock') body = { example: 'fixed for every account' };
    if (/^\/console\/hooks\//.test(path) && answer.status === 200) body = { ok: 1 };
    if (/^\/(control|__test__)\/reset$/.test(path) && answer.status === 200) body = {};
    if (path === '/console/trace') delete body.cursor;
    jsonAnswer.write(answer, { ...body, vendor_note: 'a field of its own' });
  },
};

/** A served document that names no operation (operationId is optional in OpenAPI: open choice operation-ids). */
function withoutOperationIds(doc: Record<string, JsonAnswer>): Record<string, JsonAnswer> {
  const paths = Object.fromEntries(
    Object.entries(doc.paths as Record<string, Record<string, JsonAnswer>>).map(([path, item]) => [
      path,
      Object.fromEntries(
        Object.entries(item).map(([method, operation]) => {
          if (typeof operation !== 'object' || operation === null) return [method, operation];
          const { operationId: _id, ...rest } = operation as Record<string, unknown>;
          return [method, rest];
        }),
      ),
    ]),
  );
  return { ...doc, paths };
}

/** A request body's JSON, or undefined when it is not JSON (the suite sends malformed bodies on purpose). */
function parsed(body: string): unknown {
  try {
    return JSON.parse(body || '{}');
  } catch {
    return undefined;
  }
}

const UNKNOWN_ID = /\/(no-such-order|unknown|any|x{100})(\/|$)/;

/** Our operations, found by method and path, to answer as an implementation without them would. */
const ourOperations = (() => {
  const locator = new ResponseValidator(openApiDocument);
  const ours = oursOnlyOperations(openApiDocument);
  return (method: string, path: string) => ours.has(locator.operationFor(method, path)?.operationId ?? '');
})();

/** A document that lists only what a served document must: no operation of ours, no /__test__ alias, not itself. */
function interfaceOnlyDocument(): Record<string, JsonAnswer> {
  const listed = new Set(listedOperations(openApiDocument).map((entry) => `${entry.method} ${entry.path}`));
  const doc = withoutOperationIds(interfaceDocument(openApiDocument)) as Record<string, JsonAnswer>;
  const paths = Object.fromEntries(
    Object.entries(doc.paths as Record<string, Record<string, unknown>>)
      .map(([path, item]) => [
        path,
        Object.fromEntries(Object.entries(item).filter(([method]) => listed.has(`${method} ${path}`))),
      ])
      .filter(([, item]) => Object.keys(item as object).length > 0),
  );
  return { ...doc, paths };
}

const notFound = (message: string): ProxiedAnswer => ({
  status: 404,
  headers: { 'content-type': 'application/json' },
  text: JSON.stringify({ message, code: 'NOT_FOUND' }),
});

/**
 * An implementation that takes every choice the interface leaves open the
 * other way from ours (open-choices.ts): other success statuses and
 * bodies, a lookup of the path's id before the body is read, a trace
 * stamped in real time, a past due date refused, an unknown status filter
 * answered with an empty list, a zero clock step accepted, rate headers on
 * every answer of the braked operations. And none of our additions: our
 * operations are unknown routes, its document lists neither itself nor the
 * /__test__ aliases, a plain GET of /relay is a 404, the payment page of an
 * unknown session answers JSON. The interface profile must pass it whole.
 */
export const openChoicesVariant: Mutation = {
  name: 'an implementation taking every open choice the other way',
  caughtBy: '',
  request: (request): ProxiedAnswer | void => {
    const path = request.url.pathname;
    // None of our additions.
    if (ourOperations(request.method, path)) return notFound('no such route');
    if (request.method === 'GET' && path === '/relay' && request.headers.upgrade?.toLowerCase() !== 'websocket')
      return notFound('no WebSocket upgrade asked for');
    // past-due-date: refused.
    if (is(request, 'POST', /^\/api\/v1\/ext\/payment-sessions\/buttons$/)) {
      const due = (parsed(request.body) as { due_date_session?: string } | undefined)?.due_date_session;
      if (due && Date.parse(due) < Date.now())
        return {
          status: 400,
          headers: { 'content-type': 'application/json' },
          text: JSON.stringify({
            message: 'due date in the past',
            code: 'VALIDATION_FAILED',
            details: [{ pointer: '/due_date_session', message: 'is in the past' }],
          }),
        };
    }
    // zero-clock-advance: accepted, nothing moves.
    if (
      is(request, 'POST', /^\/(control|__test__)\/clock\/advance$/) &&
      (parsed(request.body) as { ms?: unknown } | undefined)?.ms === 0
    )
      return { status: 204, headers: {}, text: '' };
    // unknown-status-filter: an empty list.
    if (
      request.method === 'GET' &&
      /\/transactions$/.test(path) &&
      request.url.searchParams.get('status') === 'REFUNDED'
    ) {
      return {
        status: 200,
        headers: { 'content-type': 'application/json' },
        text: JSON.stringify({ title: 'Orders', data: [] }),
      };
    }
  },
  answer: (request, answer, memory) => {
    const path = request.url.pathname;
    // Its own document, which describes its own choices (and names no operation: open choice operation-ids).
    if (path === '/openapi.json') return jsonAnswer.write(answer, interfaceOnlyDocument());
    // The payment page of an unknown session: its error body as JSON.
    if (request.method === 'GET' && /^\/pay\/[^/]+$/.test(path) && answer.status === 404)
      return void Object.assign(answer, notFound('no such session'));
    // not-found-or-invalid-first: past authentication, the path's id is looked up before the body is read.
    if (request.method === 'POST' && UNKNOWN_ID.test(path) && (answer.status === 400 || answer.status === 413)) {
      return jsonAnswer.write(answer, { message: 'no such resource', code: 'NOT_FOUND' }, 404);
    }
    // success-status: other 2xx, other bodies or none.
    if (answer.status === 200 && /^\/console\/webhooks\/[^/]+\/resend$/.test(path))
      return jsonAnswer.write(answer, { queued: true }, 202);
    if (answer.status === 200 && OUTCOME.test(path)) return jsonAnswer.write(answer, { accepted: true }, 202);
    if (
      answer.status === 200 &&
      (/^\/(control|__test__)\/clock\/advance$/.test(path) ||
        is(request, 'PUT', /^\/console\/rate-limit$/) ||
        is(request, 'POST', /^\/api\/v1\/ext\/stops\/reorder$/))
    ) {
      answer.status = 204;
      answer.text = '';
      delete answer.headers['content-type'];
      return;
    }
    if (answer.status === 204 && is(request, 'DELETE', /^\/api\/v1\/ext\/stops\/[^/]+$/))
      return jsonAnswer.write(answer, { deleted: true }, 200);
    // trace-time-basis: entries stamped in real time (when this proxy first sees them), not on the account clock.
    if (is(request, 'GET', /^\/console\/trace$/)) {
      rewriteTrace(answer, (entries) => {
        // One stamp for all the entries first seen in this answer, so the list stays newest first.
        const now = new Date().toISOString();
        for (const entry of entries) {
          const key = `stamp:${entry.id}`;
          if (!memory.has(key)) memory.set(key, now);
          entry.at = memory.get(key);
        }
      });
    }
  },
};
