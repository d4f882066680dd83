import { randomBytes, randomUUID } from 'node:crypto';
import { signWebhook } from '../webhook-signature.js';

// The deliveries the grader sends, built as the simulator builds its own
// (INTERFACE.md §7): a JSON body, svc-timestamp the event's created_at,
// svc-signature the HMAC of timestamp + "." + the exact bytes, and an
// idempotency-key per emission. Probes then bend one thing at a time.
//
// A probe is a recipe, signed at the moment it is sent (a timestamp made
// when a probe is built goes stale while it waits its turn), and the curl
// line of a failure signs it again when run, with the same bend.

export const EVENT_TYPES = [
  'payment_session.created',
  'payment_session.paid',
  'payment_session.accredited',
  'payment_session.accreditation_to_recipient_failed',
] as const;

export interface GradingDelivery {
  headers: Record<string, string>;
  /** The exact bytes sent. */
  body: string;
  /** What the signature covers, when a probe sends other bytes (for its curl line; never sent). */
  signedBody?: string;
}

/** How to make one delivery: what is signed, what is sent, and the one thing bent. */
export interface DeliveryRecipe {
  /** The body signed, exactly; a function of the signing time when the event carries it (created_at). */
  body: string | ((timestamp: string) => string);
  /** The bytes sent instead, when a probe changes the body after signing it. */
  alter?: (signedBody: string) => string;
  /** Milliseconds from the moment of sending to the timestamp signed (negative: in the past). */
  offsetMs?: number;
  /** Appended to the secret: a signature made with another secret. */
  secretSuffix?: string;
  /** Headers left out. */
  omit?: Array<'svc-signature' | 'svc-timestamp'>;
  idempotencyKey?: string;
}

const hex = (bytes: number) =>
  randomBytes(bytes)
    .toString('hex')
    .slice(0, bytes * 2);

/** A session's ids, so that several events can belong to one session. */
export function newSession() {
  return { session_id: `ses_${hex(9)}`, payment_id: `pay_${hex(9)}` };
}

/** The body of one event, as the simulator sends it. */
export function eventBody(
  type: string,
  createdAt: string,
  session = newSession(),
  extra: Record<string, unknown> = {},
  eventId = `evt_${hex(9)}`,
): Record<string, unknown> {
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
  return { event: type, event_id: eventId, created_at: createdAt, data, ...extra };
}

/** A recipe for one event of `type`, its created_at the signing time (the event id fixed now, so a retry is the same event). */
export function event(
  type: string,
  session = newSession(),
  extra: Record<string, unknown> = {},
  shape: (body: Record<string, unknown>) => string = (body) => JSON.stringify(body),
): DeliveryRecipe {
  const eventId = `evt_${hex(9)}`;
  return {
    body: (timestamp) => shape(eventBody(type, timestamp, session, extra, eventId)),
    idempotencyKey: randomUUID(),
  };
}

/** The delivery a recipe makes when sent at `now`. */
export function materialise(recipe: DeliveryRecipe, secret: string, now: number): GradingDelivery {
  const timestamp = new Date(now + (recipe.offsetMs ?? 0)).toISOString();
  const signedBody = typeof recipe.body === 'string' ? recipe.body : recipe.body(timestamp);
  const body = recipe.alter ? recipe.alter(signedBody) : signedBody;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'svc-signature': signWebhook(`${secret}${recipe.secretSuffix ?? ''}`, timestamp, signedBody),
    'svc-timestamp': timestamp,
    'idempotency-key': recipe.idempotencyKey ?? randomUUID(),
  };
  for (const name of recipe.omit ?? []) delete headers[name];
  return { headers, body, ...(body !== signedBody ? { signedBody } : {}) };
}

/** A correctly signed delivery of `body` at `timestamp` (the example receiver's tests use it). */
export function signed(
  secret: string,
  timestamp: string,
  body: Record<string, unknown> | string,
  idempotencyKey: string = randomUUID(),
): GradingDelivery {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  return {
    headers: {
      'content-type': 'application/json',
      'svc-signature': signWebhook(secret, timestamp, raw),
      'svc-timestamp': timestamp,
      'idempotency-key': idempotencyKey,
    },
    body: raw,
  };
}
