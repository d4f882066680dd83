import type { Store } from '../store/store.js';
import { deliveryState } from './delivery-state.js';

/** Given-up entries a look takes, per kind: the newest. */
const SCAN = 100;

/**
 * The account's (or one session's) events whose delivery ended given up or
 * undelivered and was not delivered since (one resent by hand and delivered
 * is left out), newest first, at most `limit`; `more` when there are
 * others. Found through the trace's index of those endings, the newest
 * SCAN of each kind, each checked against its outcome: bounded, however
 * long the trace.
 */
export async function failedEvents(
  store: Store,
  accountId: string,
  sessionId: string | undefined,
  limit: number,
): Promise<{ event_ids: string[]; more: boolean }> {
  const candidates: string[] = [];
  for (const type of ['webhook.gave_up', 'webhook.undelivered']) {
    const where = { account_id: accountId, type, ...(sessionId ? { session_id: sessionId } : {}) };
    const entries = await store.list<{ event_id: string; order: number }>('trace', {
      where,
      orderBy: { field: 'order', direction: 'desc' },
      limit: SCAN,
    });
    for (const entry of entries) if (!candidates.includes(entry.event_id)) candidates.push(entry.event_id);
  }
  const failed: string[] = [];
  for (const eventId of candidates) {
    if ((await deliveryState(store, eventId)) !== 'failed') continue;
    if (failed.length === limit) return { event_ids: failed, more: true };
    failed.push(eventId);
  }
  return { event_ids: failed, more: false };
}
