import type { Account } from '../accounts/account.js';
import { accountNow, iso } from '../clock.js';
import type { DeliveryRecord } from '../clock/delivery-record.js';
import { promoteNext, realDue } from '../clock/due-times.js';
import type { OutboxEvent, WebhookOutcome } from '../sessions/events.js';
import type { Transaction } from '../store/store.js';
import { trace } from '../trace/trace.js';
import type { AttemptOutcome, DispatcherDeps } from './dispatcher-deps.js';
import { afterAttempt, type LadderStep } from './ladder.js';
import type { AttemptResult } from './transport.js';

// What one webhook attempt leaves behind, written in one transaction: its
// trace entry (what was sent and answered), and what it does to the
// delivery's ladder (ladder.ts decides; this carries it out).

/** How the attempt was signed: by the ladder, by hand, or resumed after a restart. */
export interface Signing {
  timestamp: string;
  signature: string;
  manual: boolean;
  resumed?: boolean;
}

/** The attempt as it went on the wire: where, what was sent, what came back, how long it took. */
export interface SentAttempt {
  routing: AttemptOutcome['routing'];
  result: AttemptResult;
  /** A loopback receiver's receipt, written with the attempt. */
  record?: (tx: Transaction) => Promise<unknown>;
  headers: Record<string, string>;
  durationMs: number;
}

/** The headers every attempt carries. */
export function attemptHeaders(event: OutboxEvent, signing: Signing): Record<string, string> {
  return {
    'content-type': 'application/json',
    'svc-signature': signing.signature,
    'svc-timestamp': signing.timestamp,
    'idempotency-key': event.idempotency_key,
  };
}

/** How an event stored before outcomes were kept apart says its delivery closed. */
function closedStateBeforeOutcomes(event: OutboxEvent): WebhookOutcome['delivery'] {
  return event.delivery === 'gave_up' || event.delivery === 'undelivered' ? event.delivery : 'delivered';
}

const isSuccess = (status: number | undefined) => typeof status === 'number' && status >= 200 && status < 300;

/** Records the attempt: its trace entry, then the ladder's step. */
export async function recordAttempt(
  tx: Transaction,
  deps: Pick<DispatcherDeps, 'clock' | 'ladder' | 'instance'>,
  event: OutboxEvent,
  account: Account,
  signing: Signing,
  sent: SentAttempt,
): Promise<AttemptOutcome> {
  // The account as it is now, read first as a clock move reads it: its clock may have moved during the attempt.
  const held = (await tx.get<Account>('accounts', account.account_id)) ?? account;
  const delivery = await tx.get<DeliveryRecord>('deliveries', event.event_id);
  const current = await tx.get<OutboxEvent>('events', event.event_id);
  // Only a closed delivery has an outcome to count on from.
  const closed = delivery ? undefined : await tx.get<WebhookOutcome>('webhook_outcomes', event.event_id);
  const attempt = (delivery?.attempts ?? closed?.attempts ?? current?.attempts ?? 0) + 1;
  const at = iso(accountNow(deps.clock, held));
  await sent.record?.(tx);
  const { result } = sent;
  const outcome: AttemptOutcome = {
    event_id: event.event_id,
    attempt,
    routing: sent.routing,
    url: event.webhook_url,
    ...('status' in result
      ? { status: result.status, ...(result.body !== undefined ? { response_body: result.body } : {}) }
      : { error: result.error }),
    duration_ms: sent.durationMs,
  };
  trace(tx, held.account_id, 'webhook.attempt', at, {
    session_id: event.session_id,
    event: event.event,
    ...outcome,
    // What was sent, so an operator can see and replay it (the signature is not a secret: the secret is).
    request_headers: sent.headers,
    // What the console's checklist looks entries up by (an index cannot range over status within a type).
    result: isSuccess(outcome.status) ? 'succeeded' : 'failed',
    idempotency_key: event.idempotency_key,
    ...(deps.instance ? { instance: deps.instance } : {}),
    ...(signing.manual ? { manual: true, signature: signing.signature, timestamp: signing.timestamp } : {}),
    ...(signing.resumed ? { resumed: true } : {}),
  });
  if (!current) return outcome; // reset meanwhile
  const step = afterAttempt({
    delivered: 'status' in result && isSuccess(result.status),
    pending: delivery !== undefined,
    manual: signing.manual,
    closedAs: closed?.delivery ?? closedStateBeforeOutcomes(current),
    routed: sent.routing !== 'none',
    ladder: deps.ladder,
    attempt,
  });
  await takeStep(tx, step, { event, held, delivery, attempt, at, result, clock: deps.clock });
  return outcome;
}

interface StepFacts {
  event: OutboxEvent;
  held: Account;
  delivery: DeliveryRecord | undefined;
  attempt: number;
  at: string;
  result: AttemptResult;
  clock: DispatcherDeps['clock'];
}

/** Carries out the ladder's step on the delivery, in the attempt's transaction. */
async function takeStep(tx: Transaction, step: LadderStep, facts: StepFacts): Promise<void> {
  const { event, held, delivery, attempt, at } = facts;
  const close = (state: WebhookOutcome['delivery']) =>
    tx.put('webhook_outcomes', event.event_id, {
      event_id: event.event_id,
      account_id: event.account_id,
      delivery: state,
      attempts: attempt,
    } satisfies WebhookOutcome);
  const closePending = async () => {
    tx.delete('deliveries', event.event_id);
    await promoteNext(tx, event.session_id, held.clock_offset_ms);
  };
  switch (step.action) {
    case 'close':
      close(step.as);
      if (step.closesPending) await closePending();
      return;
    case 'give-up':
      await closePending();
      close(step.as);
      trace(tx, held.account_id, step.as === 'gave_up' ? 'webhook.gave_up' : 'webhook.undelivered', at, {
        session_id: event.session_id,
        event_id: event.event_id,
        attempts: attempt,
        last: facts.result,
      });
      return;
    case 'reschedule': {
      // The ladder's step counts from the end of this attempt.
      const nextAttemptAt = iso(accountNow(facts.clock, held) + step.inMs);
      tx.put('deliveries', event.event_id, {
        ...delivery,
        attempts: attempt,
        next_attempt_at: nextAttemptAt,
        due_ms: realDue(nextAttemptAt, held.clock_offset_ms),
      });
      return;
    }
    case 'none':
      return;
  }
}
