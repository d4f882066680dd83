import { randomUUID } from 'node:crypto';
import { signWebhook } from '../../contracts/webhook-signature.js';
import { newId } from '../accounts/secrets.js';
import type { Transaction } from '../store/store.js';
import { trace } from '../trace/trace.js';
import { QUEUED, realDue, sessionHead } from '../clock/due-times.js';
import type { DeliveryRecord } from '../clock/delivery-record.js';
import type { EventEffect, EventName } from './session-machine.js';
import type { SessionRecord } from './session.js';
import { creditFields, paymentReference } from './session-view.js';

/**
 * An emitted event as stored in the outbox, in the same transaction as the
 * session change that caused it. `body` is serialised once: the same bytes
 * are signed, stored and sent (INTERFACE.md §7). Written once: how its delivery
 * goes is kept in its DeliveryRecord while pending, then its WebhookOutcome.
 */
export interface OutboxEvent {
  [field: string]: unknown;
  event_id: string;
  account_id: string;
  session_id: string;
  /** Order of this event among its session's events. */
  seq: number;
  event: EventName;
  created_at: string;
  body: string;
  /** UUID v4, one per emission, the same across its retries. */
  idempotency_key: string;
  /** svc-signature over created_at (the svc-timestamp) and body; automatic retries send the same. */
  signature: string;
  webhook_url: string | null;
  /**
   * Events stored before outcomes were kept apart carry their attempt count
   * here, and their state in a `delivery` field, both rewritten with the
   * whole body at every attempt. They are read only when such an event is
   * resent, to count on and to keep how it closed.
   */
  attempts?: number;
}

/**
 * How an event's delivery ended (written when it closes) and every attempt
 * made on it since, manual resends included; keyed by event id. A small
 * record of its own, so an attempt journals a few fields, not the event's body.
 */
export interface WebhookOutcome {
  [field: string]: unknown;
  event_id: string;
  account_id: string;
  delivery: 'delivered' | 'gave_up' | 'undelivered';
  attempts: number;
}

/** Receives events after they are durable; the webhook part delivers them. */
export interface EventSink {
  emitted(events: readonly OutboxEvent[]): void;
}

export const silentSink: EventSink = { emitted: () => undefined };

/** Outbox records for the effects of one change, numbered after the session's previous events. */
export function outboxEvents(
  session: SessionRecord,
  effects: readonly EventEffect[],
  createdAt: string,
  webhookSecret: string,
): { events: OutboxEvent[]; session: SessionRecord } {
  let seq = session.event_seq;
  const events = effects.map((effect) => {
    seq += 1;
    const event_id = newId('evt');
    const body = JSON.stringify({
      event: effect.event,
      event_id,
      created_at: createdAt,
      data: {
        session_id: session.session_id,
        status: session.status,
        session_payment: paymentReference(session),
        ...(effect.event === 'payment_session.accredited' ? creditFields(session) : {}),
        ...(effect.receiver_id !== undefined ? { receiver_id: effect.receiver_id } : {}),
      },
    });
    return {
      event_id,
      account_id: session.account_id,
      session_id: session.session_id,
      seq,
      event: effect.event,
      created_at: createdAt,
      body,
      idempotency_key: randomUUID(),
      signature: signWebhook(webhookSecret, createdAt, body),
      webhook_url: session.webhook_url,
    };
  });
  return { events, session: { ...session, event_seq: seq } };
}

/**
 * Stores emitted events in the caller's transaction: the event, its pending
 * delivery, and the webhook.emitted trace entry with payload and signature
 * (recorded even when the session has no webhook_url). A delivery is due at
 * once (its account's offset gives the real instant) unless an earlier one
 * of its session is still pending: then it waits, QUEUED, for its turn.
 */
export async function recordEvents(
  tx: Pick<Transaction, 'insert' | 'list'>,
  events: readonly OutboxEvent[],
  offsetMs: number,
  options: { newSession?: boolean } = {},
): Promise<void> {
  let queued = false;
  for (const event of events) {
    // A session just created has nothing pending; otherwise one look at the session's first pending delivery.
    queued ||= !options.newSession && (await sessionHead(tx, event.session_id)) !== undefined;
    tx.insert('events', event.event_id, event);
    tx.insert('deliveries', event.event_id, {
      event_id: event.event_id,
      account_id: event.account_id,
      session_id: event.session_id,
      seq: event.seq,
      attempts: 0,
      next_attempt_at: event.created_at,
      due_ms: queued ? QUEUED : realDue(event.created_at, offsetMs),
    } satisfies DeliveryRecord);
    queued = true; // the next event of this change waits behind this one
    trace(tx, event.account_id, 'webhook.emitted', event.created_at, {
      session_id: event.session_id,
      event_id: event.event_id,
      event: event.event,
      webhook_url: event.webhook_url,
      payload: event.body,
      signature: event.signature,
      idempotency_key: event.idempotency_key,
    });
  }
}
