// INTERFACE.md §7. A ladder step is the
// delay before an attempt, counted from the end of the previous attempt
// (from the emission for the first).

export type LadderName = 'sim' | 'production';

export const ladders: Record<LadderName, readonly number[]> = {
  sim: [0, 2000, 5000],
  production: [0, 60_000, 5 * 60_000, 15 * 60_000, 60 * 60_000],
};

/** What becomes of a delivery when its last attempt failed. */
export const exhausted: Record<LadderName, 'gave_up' | 'undelivered'> = { sim: 'gave_up', production: 'undelivered' };

/** The delay before attempt `attempt` (1-based), or null when the ladder has no such step. */
export function delayBefore(ladder: LadderName, attempt: number): number | null {
  return ladders[ladder][attempt - 1] ?? null;
}

/** How a delivery ended, once it has. */
export type DeliveryEnd = 'delivered' | 'gave_up' | 'undelivered';

/** What an attempt's outcome does to its delivery (afterAttempt). */
export type LadderStep =
  /** Nothing moves: a manual resend that failed leaves the ladder as it was. */
  | { action: 'none' }
  /** The delivery's outcome is recorded as `as`; the pending delivery (if there is one) closes and its session's next event becomes due. */
  | { action: 'close'; as: DeliveryEnd; closesPending: boolean }
  /** The ladder is exhausted: the pending delivery closes as `as`, and the give-up is traced. */
  | { action: 'give-up'; as: 'gave_up' | 'undelivered' }
  /** The next attempt comes `inMs` after the end of this one. */
  | { action: 'reschedule'; inMs: number };

export interface AttemptFacts {
  /** The receiver answered 2xx. */
  delivered: boolean;
  /** The delivery is still pending (not closed before this attempt). */
  pending: boolean;
  /** A resend asked for by hand, not a step of the ladder. */
  manual: boolean;
  /** How it closed before, for an attempt after it closed. */
  closedAs: DeliveryEnd;
  /** The event had somewhere to go (a session without webhook_url has nowhere: its ladder ends at once). */
  routed: boolean;
  ladder: LadderName;
  /** This attempt's number, counted from 1 across the ladder and the resends. */
  attempt: number;
}

/** The ladder's rule after an attempt (INTERFACE.md §7): pure, so every case is one line of a table. */
export function afterAttempt({
  delivered,
  pending,
  manual,
  closedAs,
  routed,
  ladder,
  attempt,
}: AttemptFacts): LadderStep {
  if (delivered) return { action: 'close', as: 'delivered', closesPending: pending };
  // A resend after the delivery closed: counted, the way it closed kept.
  if (!pending) return { action: 'close', as: closedAs, closesPending: false };
  if (manual) return { action: 'none' };
  const wait = routed ? delayBefore(ladder, attempt + 1) : null;
  return wait === null ? { action: 'give-up', as: exhausted[ladder] } : { action: 'reschedule', inMs: wait };
}

export const ATTEMPT_TIMEOUT_MS = 5000;

/**
 * Runs an attempt under its 5 s limit, given as a signal and disarmed once
 * the attempt is answered: unlike AbortSignal.timeout's, a limit left behind
 * does not fire later (a drain of thousands of attempts left as many timers
 * to wake the event loop). Like AbortSignal.timeout's, the limit alone keeps
 * no process alive. Tests pass `signalAfter` to control the limit themselves.
 */
export async function withAttemptLimit<T>(
  attempt: (signal: AbortSignal) => Promise<T>,
  signalAfter?: (ms: number) => AbortSignal,
): Promise<T> {
  if (signalAfter) return attempt(signalAfter(ATTEMPT_TIMEOUT_MS));
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException(`no answer within ${ATTEMPT_TIMEOUT_MS} ms`, 'TimeoutError')),
    ATTEMPT_TIMEOUT_MS,
  );
  timer.unref();
  try {
    return await attempt(controller.signal);
  } finally {
    clearTimeout(timer);
  }
}
