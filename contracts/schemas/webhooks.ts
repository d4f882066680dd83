import { closed, isoTime, ref, withOursRequired, type Schema } from '../helpers.js';

// INTERFACE.md §7.

const paymentReference = closed(['id', 'origin', 'amount_reference'], {
  id: { type: 'string' },
  origin: { type: 'string', enum: ['button', 'request', 'stop'] },
  amount_reference: { type: 'number' },
});

const event = (name: string, data: Schema, description: string): Schema =>
  closed(
    ['event', 'event_id', 'created_at', 'data'],
    { event: { type: 'string', enum: [name] }, event_id: { type: 'string' }, created_at: isoTime, data },
    description,
  );

const baseData: Record<string, Schema> = {
  session_id: { type: 'string' },
  status: { type: 'string', enum: ['pending', 'paid', 'failed', 'expired'] },
  session_payment: paymentReference,
};

export const webhookSchemas: Record<string, Schema> = {
  SessionCreatedEvent: event(
    'payment_session.created',
    closed(['session_id', 'status', 'session_payment'], baseData),
    'A session was created.',
  ),
  SessionPaidEvent: event(
    'payment_session.paid',
    closed(['session_id', 'status', 'session_payment'], baseData),
    "Leg 1: the payer's charge succeeded.",
  ),
  SessionAccreditedEvent: event(
    'payment_session.accredited',
    closed(['session_id', 'status', 'session_payment', 'receiver_credits', 'receiver_credits_summary'], {
      ...baseData,
      receiver_credits: { type: 'array', items: ref('ReceiverCredit') },
      receiver_credits_summary: ref('ReceiverCreditsSummary'),
    }),
    'Leg 2: funds sent to every receiver. The credits sit beside session_payment here, inside it in the status read.',
  ),
  AccreditationToRecipientFailedEvent: event(
    'payment_session.accreditation_to_recipient_failed',
    closed(['session_id', 'status', 'session_payment', 'receiver_id'], {
      ...baseData,
      receiver_id: { type: 'string' },
    }),
    'Leg 2: crediting one receiver failed; one event per failed credit.',
  ),
  // Production events the interface lists but the simulator never emits (INTERFACE.md §7):
  // shapes beyond session_id, status and session_payment are not shown, so only those are declared.
  PaymentCompletedEvent: event(
    'payment_session.payment_completed',
    closed(['session_id', 'status', 'session_payment'], baseData),
    'Production only: the payer completed payment (event scope table).',
  ),
  PartiallyAccreditedEvent: event(
    'payment_session.partially_accredited',
    closed(['session_id', 'status', 'session_payment'], { ...baseData, receiver_id: { type: 'string' } }),
    'Production only: funds sent to the receiver (no split) or to one receiver (split).',
  ),
  AccreditationsCompletedEvent: event(
    'payment_session.accreditations_completed',
    closed(['session_id', 'status', 'session_payment'], baseData),
    'Production only: all funds credited (scope table).',
  ),
  AccreditationToRecipientCompletedEvent: event(
    'payment_session.accreditation_to_recipient_completed',
    closed(['session_id', 'status', 'session_payment'], { ...baseData, receiver_id: { type: 'string' } }),
    'Production only: funds credited to one receiver of a split.',
  ),
  FailedCreditEvent: event(
    'payment_session.failed_credit',
    closed(['session_id', 'status', 'session_payment'], { ...baseData, receiver_id: { type: 'string' } }),
    'Production only: a credit attempt failed (specific-cases list).',
  ),
  // What a resend answers is ours; the interface fixes only that it is a new attempt (INTERFACE.md §7).
  AttemptOutcome: withOursRequired(
    ['event_id', 'attempt', 'routing', 'duration_ms'],
    closed(['event_id', 'attempt', 'routing', 'duration_ms'], {
      event_id: { type: 'string' },
      attempt: { type: 'integer', minimum: 1 },
      routing: { type: 'string', enum: ['loopback', 'relay', 'direct', 'none'] },
      url: {
        type: ['string', 'null'],
        description:
          "Where the attempt went: the session's webhook_url, or the URL the resend named (null: the session has none).",
      },
      status: { type: 'integer', description: "The receiver's HTTP status." },
      response_body: {
        type: 'string',
        maxLength: 2100,
        description:
          'The start of the receiver\'s answer: its first 2 KiB as text, " [cut at 2 KiB]" at the end when there was more.',
      },
      error: { type: 'string', description: 'Why there was no status (timeout, no relay, …).' },
      duration_ms: { type: 'integer', minimum: 0 },
    }),
  ),
  // The receivers' body is ours: the interface fixes only their statuses.
  Received: withOursRequired(['received'], closed(['received'], { received: { type: 'boolean', enum: [true] } })),
};
