import { createHmac, randomUUID } from 'node:crypto';
import { openApiDocument } from '../openapi.js';
import { interfaceDocument } from '../profiles.js';
import { jsonAnswer, type Mutation, type ProxiedAnswer, type ProxiedRequest } from './mutating-proxy.js';

// Rules of the interface broken one at a time, as another implementation
// could break them, each with the check that must catch it. Every area of
// the suite is covered: orders, settlements, tokens and signatures,
// isolation, sessions, the payment page, stops, webhooks, the served
// document. Signed requests are never rewritten (that would only break
// their signature); their answers are.

const is = (request: ProxiedRequest, method: string, pattern: RegExp) => request.method === method && pattern.test(request.url.pathname);
const error = (answer: ProxiedAnswer, status: number, code: string, extra: Record<string, unknown> = {}) => jsonAnswer.write(answer, { message: `mutated: ${code}`, code, ...extra }, status);
const COMMIT = /\/pos-terminals\/[^/]+\/transactions\/[^/]+\/commit$/;
const VOID_COMMIT = /\/transactions\/[^/]+\/invalidation\/commit$/;
const INVALIDATION = /\/merchants\/[^/]+\/transactions\/[^/]+\/invalidation$/;
const SETTLEMENTS_POST = /^\/api\/v1\/pos-terminals\/[^/]+\/settlements$/;
const SETTLEMENTS_GET = /^\/api\/v1\/merchants\/[^/]+\/pos-terminals\/[^/]+\/settlements$/;
const SESSION = /^\/api\/v1\/ext\/payment-sessions\/(?!requests)[^/]+$/;
const OUTCOME = /^\/(control|__test__)\/sessions\/[^/]+\/outcome$/;

/** Remembers each order's status from every answer that shows one. */
function noteOrders(answer: ProxiedAnswer, memory: Map<string, unknown>): void {
  const data = jsonAnswer.read(answer)?.data;
  for (const order of Array.isArray(data) ? data : data ? [data] : []) if (order?.orderId && order?.status) memory.set(`order:${order.orderId}`, order.status);
}

/** Trace entries of an answer of GET /console/trace, rewritten in place. */
function rewriteTrace(answer: ProxiedAnswer, rewrite: (entries: Array<Record<string, any>>) => void): void {
  const body = jsonAnswer.read(answer);
  if (!Array.isArray(body?.data)) return;
  rewrite(body.data);
  jsonAnswer.write(answer, body);
}

export const mutations: Mutation[] = [
  // Orders (addendum §3).
  {
    name: 'a commit after a discard answers 409 (the race rule broken)',
    caughtBy: 'orders.transitions',
    answer: (request, answer) => {
      const history = jsonAnswer.read(answer)?.data?.history as Array<{ overridesDiscard?: boolean }> | undefined;
      if (is(request, 'POST', COMMIT) && answer.status === 200 && history?.[history.length - 1]?.overridesDiscard) error(answer, 409, 'ORDER_STATE_CONFLICT', { currentStatus: 'DISCARDED' });
    },
  },
  {
    name: 'a commit with another amount answers 409 instead of 422',
    caughtBy: 'orders.transitions',
    answer: (request, answer) => {
      if (is(request, 'POST', COMMIT) && answer.status === 422) error(answer, 409, 'ORDER_STATE_CONFLICT', { currentStatus: 'PENDING' });
    },
  },
  {
    name: 'invalidating a DISCARDED order answers 409 instead of 200 unchanged',
    caughtBy: 'orders.transitions',
    request: (request, memory) => {
      const orderId = request.url.pathname.split('/').at(-2);
      if (is(request, 'POST', INVALIDATION) && memory.get(`order:${orderId}`) === 'DISCARDED') {
        const answer = { status: 0, headers: {}, text: '' };
        error(answer, 409, 'ORDER_STATE_CONFLICT', { currentStatus: 'DISCARDED' });
        return answer;
      }
    },
    answer: (_request, answer, memory) => noteOrders(answer, memory),
  },
  {
    name: 'invalidating a VOIDED order answers 200',
    caughtBy: 'orders.transitions',
    answer: (request, answer) => {
      if (is(request, 'POST', INVALIDATION) && answer.status === 409 && jsonAnswer.read(answer)?.currentStatus === 'VOIDED') jsonAnswer.write(answer, { title: 'Order', data: { orderId: request.url.pathname.split('/').at(-2), status: 'VOIDED' } }, 200);
    },
  },
  {
    name: 'a void commit on a PAID order answers 200',
    caughtBy: 'orders.transitions',
    answer: (request, answer) => {
      if (is(request, 'POST', VOID_COMMIT) && answer.status === 409 && jsonAnswer.read(answer)?.currentStatus === 'PAID') jsonAnswer.write(answer, { title: 'Order', data: { orderId: request.url.pathname.split('/').at(-3), status: 'VOIDED' } }, 200);
    },
  },
  {
    name: 'order conflicts carry the code CONFLICT instead of ORDER_STATE_CONFLICT',
    caughtBy: 'orders.transitions',
    answer: (_request, answer) => {
      const body = jsonAnswer.read(answer);
      if (answer.status === 409 && body?.code === 'ORDER_STATE_CONFLICT') jsonAnswer.write(answer, { ...body, code: 'CONFLICT' });
    },
  },
  {
    name: 'the merchant\'s order list ignores ?status=',
    caughtBy: 'orders.lists',
    request: (request) => {
      if (is(request, 'GET', /^\/api\/v1\/merchants\/[^/]+\/transactions$/)) request.url.searchParams.delete('status');
    },
  },
  {
    name: 'the order list clamps size=101 to 100 instead of answering 400',
    caughtBy: 'orders.lists',
    request: (request) => {
      if (is(request, 'GET', /^\/api\/v1\/merchants\/[^/]+\/transactions$/) && Number(request.url.searchParams.get('size')) > 100) request.url.searchParams.set('size', '100');
    },
  },
  // Settlements (addendum §4).
  {
    name: 'a settlement sent again with the same fields answers 409',
    caughtBy: 'settlements.idempotency',
    answer: (request, answer, memory) => {
      if (!is(request, 'POST', SETTLEMENTS_POST) || answer.status !== 200) return;
      const key = `settlement:${request.url.pathname}:${request.body}`;
      if (memory.has(key)) error(answer, 409, 'SETTLEMENT_CONFLICT');
      memory.set(key, true);
    },
  },
  {
    name: 'a settlement with other fields for a recorded batch answers 200',
    caughtBy: 'settlements.idempotency',
    answer: (request, answer) => {
      if (is(request, 'POST', SETTLEMENTS_POST) && answer.status === 409) jsonAnswer.write(answer, { title: 'Settlement', detail: 'recorded', data: JSON.parse(request.body) }, 200);
    },
  },
  {
    name: 'the settlement query sorts descending whatever the sign',
    caughtBy: 'settlements.query',
    request: (request) => {
      const sort = request.url.searchParams.get('sort');
      if (is(request, 'GET', SETTLEMENTS_GET) && sort && !sort.startsWith('-')) request.url.searchParams.set('sort', `-${sort}`);
    },
  },
  {
    name: 'the settlement query\'s `to` bound is exclusive',
    caughtBy: 'settlements.query',
    request: (request) => {
      const to = request.url.searchParams.get('to');
      if (is(request, 'GET', SETTLEMENTS_GET) && to) request.url.searchParams.set('to', new Date(Date.parse(to) - 1).toISOString());
    },
  },
  {
    name: 'another merchant\'s terminal answers 403 instead of 404',
    caughtBy: 'settlements.query',
    answer: (request, answer) => {
      if (is(request, 'GET', SETTLEMENTS_GET) && answer.status === 404) error(answer, 403, 'FORBIDDEN');
    },
  },
  // Tokens and signatures (addendum §1, §2).
  {
    name: 'a token of the other kind answers INVALID_TOKEN instead of WRONG_TOKEN_KIND',
    caughtBy: 'tokens.kinds',
    answer: (_request, answer) => {
      const body = jsonAnswer.read(answer);
      if (answer.status === 401 && body?.code === 'WRONG_TOKEN_KIND') jsonAnswer.write(answer, { ...body, code: 'INVALID_TOKEN' });
    },
  },
  {
    name: 'refresh-token answers without x-svc-sim: fuera-de-contrato',
    caughtBy: 'tokens.kinds',
    answer: (request, answer) => {
      if (is(request, 'POST', /^\/api\/svcpagos\/refresh-token$/)) delete answer.headers['x-svc-sim'];
    },
  },
  {
    name: 'a stale POS timestamp answers SIGNATURE_INVALID instead of SIGNATURE_STALE',
    caughtBy: 'tokens.pos-signature',
    answer: (_request, answer) => {
      const body = jsonAnswer.read(answer);
      if (answer.status === 401 && body?.code === 'SIGNATURE_STALE') jsonAnswer.write(answer, { ...body, code: 'SIGNATURE_INVALID' });
    },
  },
  {
    name: 'a replayed POS signature is accepted',
    caughtBy: 'tokens.pos-signature',
    answer: (_request, answer) => {
      if (answer.status === 401 && jsonAnswer.read(answer)?.code === 'SIGNATURE_REPLAYED') jsonAnswer.write(answer, { title: 'Orders', data: [] }, 200);
    },
  },
  // Isolation (spec: Errors 404; addendum §0).
  {
    name: 'another account\'s session answers 403 instead of 404',
    caughtBy: 'isolation.other-account',
    answer: (request, answer) => {
      if (is(request, 'GET', SESSION) && answer.status === 404) error(answer, 403, 'FORBIDDEN');
    },
  },
  {
    name: 'an unknown or other account\'s agreement in a body answers 400 instead of 404',
    caughtBy: 'isolation.other-account',
    answer: (request, answer) => {
      if (is(request, 'POST', /^\/api\/v1\/ext\/payment-sessions\/buttons$/) && answer.status === 404) error(answer, 400, 'VALIDATION_FAILED');
    },
  },
  // Sessions (addendum §5, §6).
  {
    name: 'a split partner not linked to a split agreement is accepted',
    caughtBy: 'sessions.split',
    request: (request) => {
      if (!is(request, 'POST', /^\/api\/v1\/ext\/payment-sessions\/buttons$/)) return;
      const body = JSON.parse(request.body || '{}');
      // The implementation checks only the first partner it was ever linked with: here, none at all.
      if (body.split) {
        delete body.split;
        request.body = JSON.stringify(body);
      }
    },
  },
  {
    name: 'the commission is 2 % instead of 1 %',
    caughtBy: 'sessions.commission',
    answer: (request, answer) => {
      const body = jsonAnswer.read(answer);
      const credits = body?.session_payment?.receiver_credits as Array<Record<string, number>> | undefined;
      if (request.method !== 'GET' || !credits) return;
      for (const credit of credits) {
        credit.commission = Math.round(credit.gross_amount! * 2) / 100;
        credit.net_amount = Math.round((credit.gross_amount! - credit.commission) * 100) / 100;
      }
      jsonAnswer.write(answer, body);
    },
  },
  {
    name: 'expiring a paid session answers 200',
    caughtBy: 'sessions.expire',
    answer: (request, answer) => {
      if (is(request, 'POST', /\/expire$/) && answer.status === 422) jsonAnswer.write(answer, { session_id: request.url.pathname.split('/').at(-2), status: 'paid' }, 200);
    },
  },
  {
    name: 'an unknown outcome answers 500 instead of 400',
    caughtBy: 'sessions.outcomes',
    answer: (request, answer) => {
      if (is(request, 'POST', OUTCOME) && answer.status === 400) error(answer, 500, 'INVALID_FORCED_TRANSITION');
    },
  },
  {
    name: 'an outcome the rules do not admit answers 409 instead of 500',
    caughtBy: 'sessions.outcomes',
    answer: (request, answer) => {
      if (is(request, 'POST', OUTCOME) && answer.status === 500) error(answer, 409, 'INVALID_FORCED_TRANSITION');
    },
  },
  {
    name: 'a session past its due date (expire) still reads pending',
    caughtBy: 'sessions.due-dates',
    answer: (request, answer) => {
      const body = jsonAnswer.read(answer);
      if (is(request, 'GET', SESSION) && body?.status === 'expired' && body?.due_date_reached_behavior === 'expire' && body?.due_date_session) jsonAnswer.write(answer, { ...body, status: 'pending' });
    },
  },
  {
    name: 'the payment page ignores the leg-2 choice of its form',
    caughtBy: 'sessions.payment-page',
    request: (request) => {
      if (!is(request, 'POST', /^\/pay\/[^/]+$/)) return;
      const form = new URLSearchParams(request.body);
      form.delete('leg2');
      request.body = form.toString();
    },
  },
  // Stops (addendum §5).
  {
    name: 'the stop list is not ordered by position',
    caughtBy: 'stops.order',
    answer: (request, answer) => {
      const body = jsonAnswer.read(answer);
      if (is(request, 'GET', /^\/api\/v1\/ext\/stops$/) && Array.isArray(body?.data)) jsonAnswer.write(answer, { ...body, data: [...body.data].reverse() });
    },
  },
  {
    name: 'a partly failed stops batch answers 200 instead of 207',
    caughtBy: 'stops.batch',
    answer: (request, answer) => {
      if (is(request, 'POST', /^\/api\/v1\/ext\/stops\/[^/]+\/sessions$/) && answer.status === 207) answer.status = 200;
    },
  },
  {
    name: 'the stop mocks answer each account\'s own stop',
    caughtBy: 'stops.mocks',
    answer: (request, answer) => {
      const body = jsonAnswer.read(answer);
      if (is(request, 'PUT', /^\/api\/v1\/ext\/stops\/[^/]+$/) && body) jsonAnswer.write(answer, { ...body, stop_id: request.url.pathname.split('/').at(-1) });
    },
  },
  // Webhooks (spec: Events; addendum §7), as the account's receivers record them.
  {
    name: 'webhooks are signed over re-serialised JSON, not the bytes sent',
    caughtBy: 'webhooks.captura',
    answer: (request, answer, memory) => {
      if (is(request, 'POST', /^\/console\/register$/)) {
        const body = jsonAnswer.read(answer);
        if (body?.console_token) memory.set(`secret:${body.console_token}`, body.key.webhook_secret);
      }
      const secret = memory.get(`secret:${(request.headers.authorization ?? '').replace(/^Bearer /, '')}`) as string | undefined;
      if (!is(request, 'GET', /^\/console\/trace$/) || !secret) return;
      rewriteTrace(answer, (entries) => {
        for (const entry of entries) {
          if (entry.type !== 'webhook.received' || !entry.headers?.['svc-timestamp']) continue;
          const reserialised = JSON.stringify(entry.body, null, 1);
          entry.headers['svc-signature'] = createHmac('sha256', secret).update(`${entry.headers['svc-timestamp']}.${reserialised}`).digest('hex');
          entry.signature = entry.headers['svc-signature'];
        }
      });
    },
  },
  {
    name: 'automatic retries carry a new idempotency-key',
    caughtBy: 'webhooks.retries',
    answer: (request, answer, memory) => {
      if (!is(request, 'GET', /^\/console\/trace$/)) return;
      rewriteTrace(answer, (entries) => {
        for (const entry of entries) {
          if (entry.type !== 'webhook.received' || !entry.event_id || !entry.headers) continue;
          const seen = `received:${entry.event_id}`;
          const first = memory.get(seen) as string | undefined;
          if (first === undefined) memory.set(seen, entry.id);
          else if (first !== entry.id) entry.headers['idempotency-key'] = entry.idempotency_key = randomUUID();
        }
      });
    },
  },
  {
    // Emulated on the account clock the suite reads: once attempt 2 has been made, the clock is shown 3000 ms
    // behind, so attempt 3 (due 5000 ms after attempt 2) comes while the clock reads only 2000 ms past attempt 2,
    // as it would from an implementation counting the step from attempt 1. The trace's own times are not used.
    name: 'retry delays are counted from the first attempt (attempt 3 comes 5000 ms after attempt 1 on the account clock)',
    caughtBy: 'webhooks.retries',
    answer: (request, answer, memory) => {
      if (is(request, 'GET', /^\/console\/trace$/)) {
        const entries = jsonAnswer.read(answer)?.data as Array<Record<string, unknown>> | undefined;
        if (entries?.some((entry) => entry.type === 'webhook.attempt' && entry.attempt === 2)) memory.set('second attempt made', true);
        return;
      }
      if (!is(request, 'GET', /^\/(control|__test__)\/clock$/) || !memory.get('second attempt made')) return;
      const body = jsonAnswer.read(answer);
      if (typeof body?.now === 'string') jsonAnswer.write(answer, { ...body, now: new Date(Date.parse(body.now) - 3000).toISOString() });
    },
  },
  {
    name: 'a clock advance moves the account clock 2 s further than asked',
    caughtBy: 'control.clock',
    request: (request) => {
      if (!is(request, 'POST', /^\/(control|__test__)\/clock\/advance$/)) return;
      const body = JSON.parse(request.body || '{}');
      if (typeof body.ms === 'number' && body.ms > 0) request.body = JSON.stringify({ ...body, ms: body.ms + 2000 });
    },
  },
  {
    name: 'an order\'s history leaves out the void',
    caughtBy: 'orders.transitions',
    answer: (request, answer) => {
      const body = jsonAnswer.read(answer);
      if (is(request, 'GET', /^\/api\/v1\/merchants\/[^/]+\/transactions\/[^/]+$/) && body?.data?.status === 'VOIDED') jsonAnswer.write(answer, { ...body, data: { ...body.data, history: body.data.history.slice(0, -1) } });
    },
  },
  {
    name: 'a session amount with three decimals is rounded and accepted',
    caughtBy: 'sessions.create',
    request: (request) => {
      if (!is(request, 'POST', /^\/api\/v1\/ext\/payment-sessions\/buttons$/)) return;
      const body = JSON.parse(request.body || '{}');
      if (typeof body.amount_reference === 'number') request.body = JSON.stringify({ ...body, amount_reference: Math.round(body.amount_reference * 100) / 100 });
    },
  },
  // The account's surfaces (addendum §0, §2, §6, §8).
  {
    name: 'a reset answers 200 and deletes nothing',
    caughtBy: 'control.reset',
    request: (request) => {
      if (is(request, 'POST', /^\/(control|__test__)\/reset$/)) return { status: 200, headers: { 'content-type': 'application/json' }, text: '{"status":"reset","deleted":0}' };
    },
  },
  {
    name: 'a 429 of the rate brake carries no Retry-After',
    caughtBy: 'control.rate-brake',
    answer: (_request, answer) => {
      if (answer.status === 429) delete answer.headers['retry-after'];
    },
  },
  {
    name: 'the terminal list shows each terminal\'s secret',
    caughtBy: 'terminals.secrets',
    answer: (request, answer, memory) => {
      const body = jsonAnswer.read(answer);
      if (is(request, 'POST', /\/pos-terminals$/) && answer.status === 201) memory.set(`secret:${body.serialNumber}`, body.secret);
      if (is(request, 'GET', /\/pos-terminals$/) && Array.isArray(body?.data)) jsonAnswer.write(answer, { ...body, data: body.data.map((t: { serialNumber: string }) => ({ ...t, secret: memory.get(`secret:${t.serialNumber}`) })) });
    },
  },
  {
    name: 'malformed JSON answers VALIDATION_FAILED instead of MALFORMED_JSON',
    caughtBy: 'errors.bodies',
    answer: (_request, answer) => {
      const body = jsonAnswer.read(answer);
      if (answer.status === 400 && body?.code === 'MALFORMED_JSON') jsonAnswer.write(answer, { ...body, code: 'VALIDATION_FAILED' });
    },
  },
  {
    name: 'the console lists sessions oldest first',
    caughtBy: 'console.lists',
    answer: (request, answer) => {
      const body = jsonAnswer.read(answer);
      if (is(request, 'GET', /^\/console\/sessions$/) && Array.isArray(body?.data)) jsonAnswer.write(answer, { ...body, data: [...body.data].reverse() });
    },
  },
  {
    name: 'a failed accreditation emits one failed-credit event for all receivers',
    caughtBy: 'webhooks.events',
    answer: (request, answer) => {
      if (!is(request, 'GET', /^\/console\/trace$/)) return;
      rewriteTrace(answer, (entries) => {
        const seen = new Set<string>();
        for (let i = entries.length - 1; i >= 0; i -= 1) {
          const entry = entries[i]!;
          if (entry.type !== 'webhook.received' || !String(entry.raw_body).includes('accreditation_to_recipient_failed')) continue;
          const session = String(entry.session_id);
          if (seen.has(session)) entries.splice(i, 1);
          seen.add(session);
        }
      });
    },
  },
  {
    name: 'webhooks for a private address (192.168.x) are sent direct, not through the relay',
    caughtBy: 'webhooks.relay-rules',
    answer: (request, answer) => {
      if (!is(request, 'GET', /^\/console\/trace$/)) return;
      rewriteTrace(answer, (entries) => {
        for (const entry of entries) if (entry.type === 'webhook.attempt' && entry.routing === 'relay' && entry.session_id) entry.routing = 'direct';
      });
    },
  },
  // The served document (addendum §0).
  {
    name: 'the served /openapi.json drops operations',
    caughtBy: 'document.served',
    answer: (request, answer) => {
      const body = jsonAnswer.read(answer);
      if (!is(request, 'GET', /^\/openapi\.json$/) || !body?.paths) return;
      delete body.paths['/api/v1/ext/stops/reorder'];
      delete body.paths['/api/v1/pos-terminals/{serialNumber}/settlements'];
      jsonAnswer.write(answer, body);
    },
  },
];

/**
 * Not a broken rule: an implementation that conforms to the interface but
 * makes other choices where the spec and addendum leave them open (extra
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
    if (path === '/openapi.json') return jsonAnswer.write(answer, withoutOperationIds({ ...interfaceDocument(openApiDocument), 'x-vendor': 'variant' }));
    if (answer.status === 415) return jsonAnswer.write(answer, { message: 'JSON only', code: 'VALIDATION_FAILED' }, 400);
    if (/^\/api\/v1\/ext\/(agreements|partners|split-agreements)$/.test(path)) delete body.created_at;
    if (typeof body.session_id === 'string') delete body.description;
    if (Array.isArray(body.details)) body.details = body.details.map(({ in: _in, ...rest }: Record<string, unknown>) => rest);
    if (answer.headers['x-svc-sim'] === 'mock') body = { example: 'fixed for every account' };
    if (/^\/console\/hooks\//.test(path) && answer.status === 200) body = { ok: 1 };
    if (/^\/(control|__test__)\/reset$/.test(path) && answer.status === 200) body = {};
    if (path === '/console/trace') delete body.cursor;
    jsonAnswer.write(answer, { ...body, vendor_note: 'a field of its own' });
  },
};

/** A served document that names no operation (operationId is optional in OpenAPI: open choice operation-ids). */
function withoutOperationIds(doc: Record<string, any>): Record<string, any> {
  const paths = Object.fromEntries(Object.entries(doc.paths as Record<string, Record<string, any>>).map(([path, item]) => [
    path,
    Object.fromEntries(Object.entries(item).map(([method, operation]) => {
      if (typeof operation !== 'object' || operation === null) return [method, operation];
      const { operationId: _id, ...rest } = operation as Record<string, unknown>;
      return [method, rest];
    })),
  ]));
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

/**
 * An implementation that takes every choice the interface leaves open the
 * other way from ours (open-choices.ts): other success statuses and
 * bodies, a lookup of the path's id before the body is read, a trace
 * stamped in real time, a past due date refused, an unknown status filter
 * answered with an empty list, a zero clock step accepted, rate headers on
 * every answer of the braked operations. The interface profile must pass
 * it whole.
 */
export const openChoicesVariant: Mutation = {
  name: 'an implementation taking every open choice the other way',
  caughtBy: '',
  request: (request): ProxiedAnswer | void => {
    const path = request.url.pathname;
    // past-due-date: refused.
    if (is(request, 'POST', /^\/api\/v1\/ext\/payment-sessions\/buttons$/)) {
      const due = (parsed(request.body) as { due_date_session?: string } | undefined)?.due_date_session;
      if (due && Date.parse(due) < Date.now()) return { status: 400, headers: { 'content-type': 'application/json' }, text: JSON.stringify({ message: 'due date in the past', code: 'VALIDATION_FAILED', details: [{ pointer: '/due_date_session', message: 'is in the past' }] }) };
    }
    // zero-clock-advance: accepted, nothing moves.
    if (is(request, 'POST', /^\/(control|__test__)\/clock\/advance$/) && (parsed(request.body) as { ms?: unknown } | undefined)?.ms === 0) return { status: 204, headers: {}, text: '' };
    // unknown-status-filter: an empty list.
    if (request.method === 'GET' && /\/transactions$/.test(path) && request.url.searchParams.get('status') === 'REFUNDED') {
      return { status: 200, headers: { 'content-type': 'application/json' }, text: JSON.stringify({ title: 'Orders', data: [] }) };
    }
  },
  answer: (request, answer, memory) => {
    const path = request.url.pathname;
    // Its own document, which describes its own choices (and names no operation: open choice operation-ids).
    if (path === '/openapi.json') return jsonAnswer.write(answer, withoutOperationIds(interfaceDocument(openApiDocument)));
    // not-found-or-invalid-first: past authentication, the path's id is looked up before the body is read.
    if (request.method === 'POST' && UNKNOWN_ID.test(path) && (answer.status === 400 || answer.status === 413)) {
      return jsonAnswer.write(answer, { message: 'no such resource', code: 'NOT_FOUND' }, 404);
    }
    // success-status: other 2xx, other bodies or none.
    if (answer.status === 200 && /^\/console\/webhooks\/[^/]+\/resend$/.test(path)) return jsonAnswer.write(answer, { queued: true }, 202);
    if (answer.status === 200 && OUTCOME.test(path)) return jsonAnswer.write(answer, { accepted: true }, 202);
    if (answer.status === 200 && (/^\/(control|__test__)\/clock\/advance$/.test(path) || is(request, 'PUT', /^\/console\/rate-limit$/) || is(request, 'POST', /^\/api\/v1\/ext\/stops\/reorder$/))) {
      answer.status = 204;
      answer.text = '';
      delete answer.headers['content-type'];
      return;
    }
    if (answer.status === 204 && is(request, 'DELETE', /^\/api\/v1\/ext\/stops\/[^/]+$/)) return jsonAnswer.write(answer, { deleted: true }, 200);
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
