import type { OutboxEvent, WebhookOutcome } from '../sessions/events.js';
import type { Store } from '../store/store.js';

/**
 * Where an event's delivery stands, for what is resent: `delivered` (a 2xx,
 * by its ladder or a resend), `pending` (its ladder still runs), `gone`
 * (the event was purged or reset), or `failed` (it ended without a 2xx).
 * The one rule behind "resend the failed" and the relay's resume.
 */
export async function deliveryState(
  store: Store,
  eventId: string,
): Promise<'delivered' | 'pending' | 'gone' | 'failed'> {
  const outcome = await store.get<WebhookOutcome>('webhook_outcomes', eventId);
  if (outcome?.delivery === 'delivered') return 'delivered';
  if (await store.get('deliveries', eventId)) return 'pending';
  if (!(await store.get<OutboxEvent>('events', eventId))) return 'gone';
  return 'failed';
}
