import { withOursProperties } from '../helpers.js';
import type { OpenAPIV3_1 } from 'openapi-types';
import { jsonResponse, ref, responseRef, writeErrors, type Operation, type PathItems } from '../components.js';

const deliveryHeaders: OpenAPIV3_1.ParameterObject[] = [
  {
    name: 'svc-signature',
    in: 'header',
    required: true,
    schema: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    description:
      'Lowercase hex HMAC-SHA256, keyed with the account\'s webhook secret, of svc-timestamp + "." + the raw body.',
  },
  {
    name: 'svc-timestamp',
    in: 'header',
    required: true,
    schema: { type: 'string', format: 'date-time' },
    description: "The event's created_at (a manual resend signs a fresh one).",
  },
  {
    name: 'idempotency-key',
    in: 'header',
    required: true,
    schema: { type: 'string', format: 'uuid' },
    description: 'UUID v4, one per emission, the same across its retries and resends.',
  },
];

const delivery = (schema: string, summary: string, operationId: string): OpenAPIV3_1.PathItemObject =>
  ({
    post: {
      operationId,
      summary,
      security: [{ svcSignature: [] }],
      parameters: deliveryHeaders as OpenAPIV3_1.ParameterObject[],
      requestBody: { required: true, content: { 'application/json': { schema: ref(schema) } } },
      responses: {
        '200': { description: 'Any 2xx within 5 s closes the delivery; anything else is retried on the ladder.' },
      },
    },
  }) as OpenAPIV3_1.PathItemObject;

/** INTERFACE.md §7: what the simulator sends to webhook_url. */
export const webhookDeliveries: Record<string, OpenAPIV3_1.PathItemObject> = {
  'payment_session.created': delivery('SessionCreatedEvent', 'A session was created', 'webhookSessionCreated'),
  'payment_session.paid': delivery('SessionPaidEvent', 'Leg 1 paid', 'webhookSessionPaid'),
  'payment_session.accredited': delivery('SessionAccreditedEvent', 'Leg 2 accredited', 'webhookSessionAccredited'),
  'payment_session.accreditation_to_recipient_failed': delivery(
    'AccreditationToRecipientFailedEvent',
    "Leg 2: one receiver's credit failed",
    'webhookAccreditationToRecipientFailed',
  ),
  // Listed by the production interface; the simulator does not emit these (see /fidelidad).
  'payment_session.payment_completed': delivery(
    'PaymentCompletedEvent',
    'Production only: payment completed',
    'webhookPaymentCompleted',
  ),
  'payment_session.partially_accredited': delivery(
    'PartiallyAccreditedEvent',
    'Production only: partially accredited',
    'webhookPartiallyAccredited',
  ),
  'payment_session.accreditations_completed': delivery(
    'AccreditationsCompletedEvent',
    'Production only: accreditations completed',
    'webhookAccreditationsCompleted',
  ),
  'payment_session.accreditation_to_recipient_completed': delivery(
    'AccreditationToRecipientCompletedEvent',
    'Production only: one receiver credited',
    'webhookAccreditationToRecipientCompleted',
  ),
  'payment_session.failed_credit': delivery(
    'FailedCreditEvent',
    'Production only: a credit failed',
    'webhookFailedCredit',
  ),
};

/**
 * One of the account's four default receivers (INTERFACE.md §1 and §8), each its own operation so that a client
 * generated from the document has all four. One handler serves them.
 */
function defaultReceiver(
  receiver: 'paid' | 'accredited' | 'fail' | 'captura',
  operationId: string,
  summary: string,
): PathItems {
  const answer: OpenAPIV3_1.ResponsesObject =
    receiver === 'fail'
      ? { '500': responseRef('ReceiverFailure') }
      : { '200': jsonResponse('Received and recorded.', ref('Received')) };
  return {
    [`/console/hooks/{account_id}/${receiver}`]: {
      post: {
        operationId,
        'x-alias-of': 'receiveWebhook',
        summary,
        description:
          'Every call is recorded in the trace as webhook.received with the raw body, the parsed body, the headers, the signature and the idempotency key.',
        tags: ['simulator'],
        security: [],
        'x-raw-body': true,
        parameters: [{ name: 'account_id', in: 'path', required: true, schema: { type: 'string', maxLength: 64 } }],
        requestBody: { required: false, content: { '*/*': { schema: {} } } },
        responses: {
          ...answer,
          '400': responseRef('BadRequest'),
          '404': responseRef('NotFound'),
          '413': responseRef('PayloadTooLarge'),
        },
      } as Operation,
    },
  };
}

export const webhookPaths: PathItems = {
  ...defaultReceiver('paid', 'receivePaidWebhook', 'The default receiver "paid": answers 200.'),
  ...defaultReceiver('accredited', 'receiveAccreditedWebhook', 'The default receiver "accredited": answers 200.'),
  ...defaultReceiver(
    'fail',
    'receiveFailWebhook',
    'The default receiver "fail": answers 500 on purpose, to exercise retries.',
  ),
  ...defaultReceiver(
    'captura',
    'receiveCapturaWebhook',
    'The default receiver "captura": accepts anything and answers 200.',
  ),
  '/console/webhooks/{event_id}/resend': {
    post: {
      operationId: 'resendWebhook',
      summary: "Attempt an event's delivery again now",
      description:
        'A new attempt with the same idempotency-key and a fresh svc-timestamp and signature; it does not move the retry ladder. A 2xx closes a delivery still pending. ' +
        'With a body { "url" }, the attempt goes to that URL instead (routed by the same rules: loopback, relay or direct); the session\'s webhook_url stays as it is.',
      tags: ['console'],
      security: [{ consoleBearer: [] }],
      parameters: [{ name: 'event_id', in: 'path', required: true, schema: { type: 'string', maxLength: 64 } }],
      requestBody: {
        required: false,
        content: {
          'application/json': {
            // INTERFACE.md fixes the resend, not its body: the url is ours (profiles.ts).
            schema: withOursProperties(['url'], {
              type: 'object',
              additionalProperties: false,
              properties: {
                url: {
                  type: 'string',
                  maxLength: 2048,
                  pattern: '^https?://',
                  description: 'Another receiver for this attempt only.',
                },
              },
            }),
          },
        },
      },
      responses: {
        '200': jsonResponse('What the attempt got.', ref('AttemptOutcome')),
        '400': responseRef('BadRequest'),
        '401': responseRef('Unauthorized'),
        '404': responseRef('NotFound'),
        '413': responseRef('PayloadTooLarge'),
        ...writeErrors,
      },
    },
  },
  '/console/webhooks/failed': {
    get: {
      operationId: 'listFailedWebhooks',
      'x-ours': true, // not an operation of the interface (profiles.ts)
      summary: 'The events whose delivery was given up, for the account or one session',
      description:
        'The events POST /console/webhooks/resend-failed would resend now: delivery ended given up or undelivered, and not delivered by a resend since; newest first, at most 10, `more` when there are others. The console shows its resend button only when there is one.',
      tags: ['console'],
      security: [{ consoleBearer: [] }],
      parameters: [
        {
          name: 'session_id',
          in: 'query',
          required: false,
          schema: { type: 'string', maxLength: 64 },
          description: "Only this session's events.",
        },
      ],
      responses: {
        '200': jsonResponse('The failed events.', {
          type: 'object',
          required: ['event_ids', 'more'],
          additionalProperties: false,
          properties: {
            event_ids: { type: 'array', maxItems: 10, items: { type: 'string' } },
            more: { type: 'boolean' },
          },
        }),
        '400': responseRef('BadRequest'),
        '401': responseRef('Unauthorized'),
      },
    },
  },
  '/console/webhooks/resend-failed': {
    post: {
      operationId: 'resendFailedWebhooks',
      'x-ours': true, // not an operation of the interface (profiles.ts)
      summary: 'Resend every event whose delivery was given up, for the account or one session',
      description:
        'Each event whose delivery ended given up or undelivered (and was not delivered by a resend since) gets a new attempt, as POST /console/webhooks/{event_id}/resend does; newest first, at most 10 a call: `more` says to call again.',
      tags: ['console'],
      security: [{ consoleBearer: [] }],
      requestBody: {
        required: false,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              additionalProperties: false,
              properties: { session_id: { type: 'string', maxLength: 64, description: "Only this session's events." } },
            },
          },
        },
      },
      responses: {
        '200': jsonResponse('The attempts made.', {
          type: 'object',
          required: ['resent', 'more'],
          additionalProperties: false,
          properties: {
            resent: { type: 'array', maxItems: 10, items: ref('AttemptOutcome') },
            more: { type: 'boolean' },
          },
        }),
        '400': responseRef('BadRequest'),
        '401': responseRef('Unauthorized'),
        '413': responseRef('PayloadTooLarge'),
        ...writeErrors,
      },
    },
  },
  '/relay': {
    get: {
      operationId: 'openRelay',
      summary: 'The WebSocket relay (upgrade)',
      description:
        'Upgrade to a WebSocket with Authorization: Bearer <API or login token> (or ?token=); a console token or an unknown token is refused with 401 before any WebSocket exists. ' +
        'Server → client: { "type": "webhook", "delivery_id", "event_id", "url", "headers", "body" } (body: the exact signed string). Client → server: { "type": "result", "delivery_id", "status", "body"? } (body: the start of the local receiver\'s answer, kept 2 KiB at most with the attempt). ' +
        'One relay per key: a second connection closes the first with close code 4000, whichever instance each is connected to (several instances on one database). A plain GET answers 426; 503 when where the relay is connected could not be recorded. ' +
        'Ours: resuming (docs/relay-protocol.md). Each delivery routed to the relay has a position in the account\'s relay sequence, sent as "position"; a client that connects with ?cursor=N first gets { "type": "resume", "v": 1, "cursor", "up_to", "resending", "pending", "left_out", "from" }, then, in order, every delivery after N that ended without a 2xx, as new attempts marked "resumed": true (same idempotency-key and body, fresh svc-timestamp and signature). ?backfill_ms=N (a first connection, no cursor) does the same for what was routed over the last N ms, 1000 deliveries at most. The server pings every SIM_RELAY_HEARTBEAT_MS and closes a relay that misses a beat.',
      tags: ['simulator'],
      security: [],
      'x-ours-statuses': ['426', '400'], // how a plain GET is refused, and the resume's parameters, are ours (profiles.ts)
      parameters: [
        {
          name: 'cursor',
          in: 'query',
          required: false,
          description: "Ours: the last position up to which the client's receiver answered every delivery with a 2xx.",
          schema: { type: 'string', pattern: '^[0-9]{1,15}$' },
        },
        {
          name: 'backfill_ms',
          in: 'query',
          required: false,
          description: 'Ours: a first connection asks for what was missed over this many ms (1 to 86,400,000).',
          schema: { type: 'string', pattern: '^[0-9]{1,15}$' },
        },
      ],
      responses: {
        '101': { description: 'Switching to the WebSocket protocol.' },
        '400': responseRef('BadRequest'),
        '401': responseRef('Unauthorized'),
        '426': responseRef('UpgradeRequired'),
        '503': responseRef('StoreUnavailable'),
      },
    },
  },
};
