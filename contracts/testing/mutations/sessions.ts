import { jsonAnswer, type Mutation } from '../mutating-proxy.js';
import { is, error, SESSION, OUTCOME } from './kit.js';

// Isolation, sessions and stops (INTERFACE.md §0, §5, §6) broken one rule at a time.

export const sessionMutations: Mutation[] = [
  // Isolation (INTERFACE.md §0).
  {
    name: "another account's session answers 403 instead of 404",
    caughtBy: 'isolation.other-account',
    answer: (request, answer) => {
      if (is(request, 'GET', SESSION) && answer.status === 404) error(answer, 403, 'FORBIDDEN');
    },
  },
  {
    name: "an unknown or other account's agreement in a body answers 400 instead of 404",
    caughtBy: 'isolation.other-account',
    answer: (request, answer) => {
      if (is(request, 'POST', /^\/api\/v1\/ext\/payment-sessions\/buttons$/) && answer.status === 404)
        error(answer, 400, 'VALIDATION_FAILED');
    },
  },
  // Sessions (INTERFACE.md §5, §6).
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
      if (is(request, 'POST', /\/expire$/) && answer.status === 422)
        jsonAnswer.write(answer, { session_id: request.url.pathname.split('/').at(-2), status: 'paid' }, 200);
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
      if (
        is(request, 'GET', SESSION) &&
        body?.status === 'expired' &&
        body?.due_date_reached_behavior === 'expire' &&
        body?.due_date_session
      )
        jsonAnswer.write(answer, { ...body, status: 'pending' });
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
  // Stops (INTERFACE.md §5).
  {
    name: 'the stop list is not ordered by position',
    caughtBy: 'stops.order',
    answer: (request, answer) => {
      const body = jsonAnswer.read(answer);
      if (is(request, 'GET', /^\/api\/v1\/ext\/stops$/) && Array.isArray(body?.data))
        jsonAnswer.write(answer, { ...body, data: [...body.data].reverse() });
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
    name: "the stop mocks answer each account's own stop",
    caughtBy: 'stops.mocks',
    answer: (request, answer) => {
      const body = jsonAnswer.read(answer);
      if (is(request, 'PUT', /^\/api\/v1\/ext\/stops\/[^/]+$/) && body)
        jsonAnswer.write(answer, { ...body, stop_id: request.url.pathname.split('/').at(-1) });
    },
  },
];
