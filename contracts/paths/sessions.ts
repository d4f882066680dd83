import type { OpenAPIV3_1 } from 'openapi-types';
import { bodyErrors, jsonBody, jsonResponse, ref, responseRef, writeErrors, type PathItems } from '../components.js';

// INTERFACE.md §5: the 17 operations under /api/v1/ext, and the status read under /payment-sessions.

const bearer = [{ apiBearer: [] }];
const tags = ['payment sessions'];
const idParam = (name: string, description: string): OpenAPIV3_1.ParameterObject => ({
  name,
  in: 'path',
  required: true,
  schema: { type: 'string', maxLength: 64 },
  description,
});
const sessionId = idParam('session_id', 'The session.');
const stopId = idParam('stop_id', 'The stop.');
const batchId = idParam('batch_id', 'The Request batch.');
const auth = { '401': responseRef('Unauthorized') };
const notFound = { '404': responseRef('NotFound') };
const mockHeader: OpenAPIV3_1.ResponseObject['headers'] = {
  'x-svc-sim': {
    description: 'Marks a contract example: fixed invented data, identical for every account.',
    required: true,
    schema: { type: 'string', enum: ['mock'] },
  },
};
/** A contract example's answer: the header is the interface's, the body's shape ours (`x-ours`, profiles.ts). */
const mockAnswer = (schema: ReturnType<typeof ref>): OpenAPIV3_1.ResponseObject =>
  ({ ...jsonResponse('The contract example.', schema, mockHeader), 'x-ours': true }) as OpenAPIV3_1.ResponseObject;

/** A creation; `namesIds` when its body names other resources (which answer 404 when not the caller's). */
const create = (
  operationId: string,
  summary: string,
  request: string,
  answer: string,
  extra: Record<string, unknown> = {},
  namesIds = true,
): OpenAPIV3_1.OperationObject => ({
  operationId,
  summary,
  tags,
  security: bearer,
  requestBody: jsonBody(request),
  responses: {
    '201': jsonResponse(`The created ${answer}.`, ref(answer)),
    ...bodyErrors,
    ...auth,
    ...(namesIds ? notFound : {}),
    ...writeErrors,
    ...extra,
  } as OpenAPIV3_1.ResponsesObject,
});

const readSession: OpenAPIV3_1.OperationObject = {
  operationId: 'getPaymentSession',
  summary: "Read a session's status",
  description:
    'A session past its due date reads as expired (expire mode) or pending (keep_active). After accreditation, session_payment holds receiver_credits and receiver_credits_summary.',
  tags,
  security: bearer,
  parameters: [sessionId],
  responses: {
    '200': jsonResponse('The session.', ref('PaymentSession')),
    '400': responseRef('BadRequest'),
    ...auth,
    ...notFound,
  },
};

export const sessionPaths: PathItems = {
  '/api/v1/ext/agreements': {
    post: create('createAgreement', 'Create an agreement', 'AgreementCreateRequest', 'Agreement', {}, false),
  },
  '/api/v1/ext/partners': {
    post: create('createPartner', 'Create a partner', 'PartnerCreateRequest', 'Partner', {}, false),
  },
  '/api/v1/ext/split-agreements': {
    post: create(
      'createSplitAgreement',
      'Link a partner to an agreement for split reception',
      'SplitAgreementCreateRequest',
      'SplitAgreement',
      { '409': responseRef('Conflict') },
    ),
  },
  '/api/v1/ext/payment-sessions/buttons': {
    post: create('createButtonSession', 'Create a Button session', 'SessionCreateRequest', 'PaymentSession'),
  },
  '/api/v1/ext/payment-sessions/requests': {
    post: {
      ...create(
        'createRequestBatch',
        'Create a Request batch of sessions',
        'RequestBatchCreateRequest',
        'RequestBatch',
      ),
      description:
        'All or nothing: the simulator ignores continue_on_error; one invalid item answers 400 (or 404 for an unknown id) and creates nothing.',
    },
  },
  '/api/v1/ext/payment-sessions/requests/{batch_id}': {
    get: {
      operationId: 'getRequestBatch',
      summary: 'Read a Request batch with its sessions as they are now',
      tags,
      security: bearer,
      parameters: [batchId],
      responses: {
        '200': jsonResponse('The batch.', ref('RequestBatch')),
        '400': responseRef('BadRequest'),
        ...auth,
        ...notFound,
      },
    },
  },
  '/api/v1/ext/payment-sessions/{session_id}': { get: readSession },
  '/api/v1/ext/payment-sessions/{session_id}/expire': {
    post: {
      operationId: 'expirePaymentSession',
      summary: 'Expire a session',
      description: 'pending or failed → expired; expired answers 200 unchanged; paid answers 422 SESSION_ALREADY_PAID.',
      tags,
      security: bearer,
      parameters: [sessionId],
      responses: {
        '200': jsonResponse('The session as it now is.', ref('PaymentSession')),
        '400': responseRef('BadRequest'),
        ...auth,
        ...notFound,
        '422': responseRef('SessionAlreadyPaid'),
        ...writeErrors,
      },
    },
  },
  '/api/v1/ext/stops': {
    post: create('createStop', 'Create a stop', 'StopCreateRequest', 'Stop', {}, false),
    get: {
      operationId: 'listStops',
      summary: "The account's stops, ordered by position",
      tags,
      security: bearer,
      responses: { '200': jsonResponse('The stops.', ref('StopList')), ...auth },
    },
  },
  '/api/v1/ext/stops/reorder': {
    post: {
      operationId: 'reorderStops',
      summary: 'Give every stop its position, in the order listed',
      description:
        "stop_ids must list each of the account's stops exactly once (else 400); an id that is not the account's answers 404.",
      tags,
      security: bearer,
      requestBody: jsonBody('StopReorderRequest'),
      responses: {
        '200': jsonResponse('The stops in their new order.', ref('StopList')),
        ...bodyErrors,
        ...auth,
        ...notFound,
        ...writeErrors,
      },
    },
  },
  '/api/v1/ext/stops/query': {
    post: {
      operationId: 'queryStopsMock',
      summary: 'Multiple query of stops (contract example only)',
      description: 'Not operational on the real platform: answers fixed invented data with x-svc-sim: mock.',
      tags,
      security: bearer,
      requestBody: { required: false, content: { 'application/json': { schema: ref('AnyObject') } } },
      responses: { '200': mockAnswer(ref('MockStopQuery')), ...bodyErrors, ...auth },
    },
  },
  '/api/v1/ext/stops/{stop_id}': {
    get: {
      operationId: 'getStop',
      summary: 'One stop',
      tags,
      security: bearer,
      parameters: [stopId],
      responses: {
        '200': jsonResponse('The stop.', ref('Stop')),
        '400': responseRef('BadRequest'),
        ...auth,
        ...notFound,
      },
    },
    delete: {
      operationId: 'deleteStop',
      summary: 'Delete a stop (its sessions stay)',
      tags,
      security: bearer,
      parameters: [stopId],
      responses: {
        '204': { description: 'Deleted; the stops after it move up one position.' },
        '400': responseRef('BadRequest'),
        ...auth,
        ...notFound,
        ...writeErrors,
      },
    },
    put: {
      operationId: 'updateStopMock',
      summary: 'Update a stop (contract example only)',
      description:
        'Not operational on the real platform: answers fixed invented data with x-svc-sim: mock, changes nothing.',
      tags,
      security: bearer,
      parameters: [stopId],
      requestBody: { required: false, content: { 'application/json': { schema: ref('AnyObject') } } },
      responses: { '200': mockAnswer(ref('MockStop')), ...bodyErrors, ...auth },
    },
  },
  '/api/v1/ext/stops/{stop_id}/history': {
    get: {
      operationId: 'getStopHistoryMock',
      summary: "A stop's history (contract example only)",
      description: 'Not operational on the real platform: answers fixed invented data with x-svc-sim: mock.',
      tags,
      security: bearer,
      parameters: [stopId],
      responses: { '200': mockAnswer(ref('MockStopHistory')), '400': responseRef('BadRequest'), ...auth },
    },
  },
  '/api/v1/ext/stops/{stop_id}/sessions': {
    post: {
      operationId: 'addStopSessions',
      summary: 'Create sessions for a stop in one batch',
      description:
        '201 when every item succeeded; 207 with per-item results when some failed and continue_on_error is true; otherwise 400 at the first error, with nothing created.',
      tags,
      security: bearer,
      parameters: [stopId],
      requestBody: jsonBody('StopSessionsRequest'),
      responses: {
        '201': jsonResponse('Every item succeeded.', ref('StopSessionsResult')),
        '207': jsonResponse(
          'Some items failed (continue_on_error was true); each result says which.',
          ref('StopSessionsResult'),
        ),
        ...bodyErrors,
        ...auth,
        ...notFound,
        ...writeErrors,
      },
    },
  },
  '/payment-sessions/{session_id}': {
    get: {
      ...readSession,
      operationId: 'readPaymentSession',
      summary: "Read a session's status (the short path)",
      'x-alias-of': 'getPaymentSession',
    } as OpenAPIV3_1.OperationObject,
  },
};

export const sessionControlPaths: PathItems = {
  '/control/sessions/{session_id}/outcome': {
    post: {
      operationId: 'forceSessionOutcome',
      summary: 'Force an outcome on leg 1 (payment) or leg 2 (accreditation)',
      description:
        'Leg 1: paid, failed or expired, from every status but paid. Leg 2: accredited or accreditation_failed, only when the status is paid and the accreditation none or scheduled (a scheduled one is cancelled). ' +
        'A well-formed request these rules do not admit answers 500 INVALID_FORCED_TRANSITION with the reason. Forcing paid does not schedule the accreditation.',
      tags: ['control'],
      security: bearer,
      parameters: [sessionId],
      requestBody: jsonBody('OutcomeRequest'),
      responses: {
        '200': jsonResponse('The session after the outcome.', ref('PaymentSession')),
        ...bodyErrors,
        ...auth,
        ...notFound,
        '500': responseRef('InvalidForcedTransition'),
        ...writeErrors,
      },
    },
  },
  '/control/reset': {
    post: {
      operationId: 'resetAccount',
      summary: 'Return the account to its just-created state',
      description:
        "Deletes only the calling account's data (sessions, agreements, partners, stops, events, terminals, orders, settlements) and sets its clock back; keys and tokens stay.",
      tags: ['control'],
      security: bearer,
      responses: { '200': jsonResponse('What was deleted.', ref('ResetResult')), ...auth, ...writeErrors },
    },
  },
};
