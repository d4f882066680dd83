import { randomBytes, randomUUID } from 'node:crypto';
import { signWebhook } from '../webhook-signature.js';

// The deliveries the grader sends, built as the simulator builds its own
// (addendum §7): a JSON body, svc-timestamp the event's created_at,
// svc-signature the HMAC of timestamp + "." + the exact bytes, and an
// idempotency-key per emission. Probes then bend one thing at a time.

export const EVENT_TYPES = [
  'payment_session.created',
  'payment_session.paid',
  'payment_session.accredited',
  'payment_session.accreditation_to_recipient_failed',
] as const;

export interface Delivery {
  headers: Record<string, string>;
  /** The exact bytes sent. */
  body: string;
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex').slice(0, bytes * 2);

/** A session's ids, so that several events can belong to one session. */
export function newSession() {
  return { session_id: `ses_${hex(9)}`, payment_id: `pay_${hex(9)}` };
}

/** The body of one event, as the simulator sends it. */
export function eventBody(type: string, createdAt: string, session = newSession(), extra: Record<string, unknown> = {}): Record<string, unknown> {
  const status = type.endsWith('created') ? 'pending' : type.endsWith('paid') ? 'paid' : 'accredited';
  const data: Record<string, unknown> = {
    session_id: session.session_id,
    status,
    session_payment: { id: session.payment_id, origin: 'button', amount_reference: 120.5 },
  };
  if (type === 'payment_session.accredited') {
    data.receiver_credits = [{ receiver_id: 'owner', amount_reference: 119.3, commission_reference: 1.2 }];
    data.receiver_credits_summary = { net_amount_reference: 119.3, commissions_reference: 1.2, total_credits: 1 };
  }
  if (type === 'payment_session.accreditation_to_recipient_failed') data.receiver_id = `par_${hex(9)}`;
  return { event: type, event_id: `evt_${hex(9)}`, created_at: createdAt, data, ...extra };
}

/** A correctly signed delivery of `body` (serialised compactly unless given as text). */
export function signed(secret: string, timestamp: string, body: Record<string, unknown> | string, idempotencyKey: string = randomUUID()): Delivery {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  return {
    headers: { 'content-type': 'application/json', 'svc-signature': signWebhook(secret, timestamp, raw), 'svc-timestamp': timestamp, 'idempotency-key': idempotencyKey },
    body: raw,
  };
}

/** `ms` from `now` as the ISO 8601 timestamp a delivery carries. */
export function timestampAt(now: number, ms = 0): string {
  return new Date(now + ms).toISOString();
}
