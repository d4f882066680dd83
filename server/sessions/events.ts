import { randomUUID } from 'node:crypto';
import { newId } from '../accounts/secrets.js';
import type { EventEffect, EventName } from './session-machine.js';
import type { SessionRecord } from './session.js';
import { creditFields, paymentReference } from './session-view.js';

/**
 * An emitted event as stored in the outbox, in the same transaction as the
 * session change that caused it. `body` is serialised once: the same bytes
 * are signed, stored and sent (addendum §7).
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
  webhook_url: string | null;
  delivery: 'pending' | 'delivered' | 'gave_up' | 'undelivered';
}

/** Receives events after they are durable; the webhook part delivers them. */
export interface EventSink {
  emitted(events: readonly OutboxEvent[]): void;
}

export const silentSink: EventSink = { emitted: () => undefined };

/** Outbox records for the effects of one change, numbered after the session's previous events. */
export function outboxEvents(session: SessionRecord, effects: readonly EventEffect[], createdAt: string): { events: OutboxEvent[]; session: SessionRecord } {
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
      webhook_url: session.webhook_url,
      delivery: 'pending' as const,
    };
  });
  return { events, session: { ...session, event_seq: seq } };
}
