import { jsonAnswer, type Mutation } from '../mutating-proxy.js';
import { is, error, COMMIT, VOID_COMMIT, INVALIDATION, SETTLEMENTS_POST, SETTLEMENTS_GET, noteOrders } from './kit.js';

// Orders, settlements, tokens and signatures (INTERFACE.md §1 to §4): the POS side of the interface broken one rule at a time.

export const posMutations: Mutation[] = [
  // Orders (INTERFACE.md §3).
  {
    name: 'a commit after a discard answers 409 (the race rule broken)',
    caughtBy: 'orders.transitions',
    answer: (request, answer) => {
      const history = jsonAnswer.read(answer)?.data?.history as Array<{ overridesDiscard?: boolean }> | undefined;
      if (is(request, 'POST', COMMIT) && answer.status === 200 && history?.[history.length - 1]?.overridesDiscard)
        error(answer, 409, 'ORDER_STATE_CONFLICT', { currentStatus: 'DISCARDED' });
    },
  },
  {
    name: 'a commit with another amount answers 409 instead of 422',
    caughtBy: 'orders.transitions',
    answer: (request, answer) => {
      if (is(request, 'POST', COMMIT) && answer.status === 422)
        error(answer, 409, 'ORDER_STATE_CONFLICT', { currentStatus: 'PENDING' });
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
      if (
        is(request, 'POST', INVALIDATION) &&
        answer.status === 409 &&
        jsonAnswer.read(answer)?.currentStatus === 'VOIDED'
      )
        jsonAnswer.write(
          answer,
          { title: 'Order', data: { orderId: request.url.pathname.split('/').at(-2), status: 'VOIDED' } },
          200,
        );
    },
  },
  {
    name: 'a void commit on a PAID order answers 200',
    caughtBy: 'orders.transitions',
    answer: (request, answer) => {
      if (
        is(request, 'POST', VOID_COMMIT) &&
        answer.status === 409 &&
        jsonAnswer.read(answer)?.currentStatus === 'PAID'
      )
        jsonAnswer.write(
          answer,
          { title: 'Order', data: { orderId: request.url.pathname.split('/').at(-3), status: 'VOIDED' } },
          200,
        );
    },
  },
  {
    name: 'order conflicts carry the code CONFLICT instead of ORDER_STATE_CONFLICT',
    caughtBy: 'orders.transitions',
    answer: (_request, answer) => {
      const body = jsonAnswer.read(answer);
      if (answer.status === 409 && body?.code === 'ORDER_STATE_CONFLICT')
        jsonAnswer.write(answer, { ...body, code: 'CONFLICT' });
    },
  },
  {
    name: "the merchant's order list ignores ?status=",
    caughtBy: 'orders.lists',
    request: (request) => {
      if (is(request, 'GET', /^\/api\/v1\/merchants\/[^/]+\/transactions$/)) request.url.searchParams.delete('status');
    },
  },
  {
    name: 'the order list clamps size=101 to 100 instead of answering 400',
    caughtBy: 'orders.lists',
    request: (request) => {
      if (
        is(request, 'GET', /^\/api\/v1\/merchants\/[^/]+\/transactions$/) &&
        Number(request.url.searchParams.get('size')) > 100
      )
        request.url.searchParams.set('size', '100');
    },
  },
  // Settlements (INTERFACE.md §4).
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
      if (is(request, 'POST', SETTLEMENTS_POST) && answer.status === 409)
        jsonAnswer.write(answer, { title: 'Settlement', detail: 'recorded', data: JSON.parse(request.body) }, 200);
    },
  },
  {
    name: 'the settlement query sorts descending whatever the sign',
    caughtBy: 'settlements.query',
    request: (request) => {
      const sort = request.url.searchParams.get('sort');
      if (is(request, 'GET', SETTLEMENTS_GET) && sort && !sort.startsWith('-'))
        request.url.searchParams.set('sort', `-${sort}`);
    },
  },
  {
    name: "the settlement query's `to` bound is exclusive",
    caughtBy: 'settlements.query',
    request: (request) => {
      const to = request.url.searchParams.get('to');
      if (is(request, 'GET', SETTLEMENTS_GET) && to)
        request.url.searchParams.set('to', new Date(Date.parse(to) - 1).toISOString());
    },
  },
  {
    name: "another merchant's terminal answers 403 instead of 404",
    caughtBy: 'settlements.query',
    answer: (request, answer) => {
      if (is(request, 'GET', SETTLEMENTS_GET) && answer.status === 404) error(answer, 403, 'FORBIDDEN');
    },
  },
  // Tokens and signatures (INTERFACE.md §1, §2).
  {
    name: 'a token of the other kind answers INVALID_TOKEN instead of WRONG_TOKEN_KIND',
    caughtBy: 'tokens.kinds',
    answer: (_request, answer) => {
      const body = jsonAnswer.read(answer);
      if (answer.status === 401 && body?.code === 'WRONG_TOKEN_KIND')
        jsonAnswer.write(answer, { ...body, code: 'INVALID_TOKEN' });
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
      if (answer.status === 401 && body?.code === 'SIGNATURE_STALE')
        jsonAnswer.write(answer, { ...body, code: 'SIGNATURE_INVALID' });
    },
  },
  {
    name: 'a replayed POS signature is accepted',
    caughtBy: 'tokens.pos-signature',
    answer: (_request, answer) => {
      if (answer.status === 401 && jsonAnswer.read(answer)?.code === 'SIGNATURE_REPLAYED')
        jsonAnswer.write(answer, { title: 'Orders', data: [] }, 200);
    },
  },
];
