// spec: Events, Delivery and retries; addendum §7. A ladder step is the
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

export const ATTEMPT_TIMEOUT_MS = 5000;

/**
 * Runs an attempt under its 5 s limit, given as a signal and disarmed once
 * the attempt is answered: unlike AbortSignal.timeout's, a limit left behind
 * does not fire later (a drain of thousands of attempts left as many timers
 * to wake the event loop). Like AbortSignal.timeout's, the limit alone keeps
 * no process alive. Tests pass `signalAfter` to control the limit themselves.
 */
export async function withAttemptLimit<T>(attempt: (signal: AbortSignal) => Promise<T>, signalAfter?: (ms: number) => AbortSignal): Promise<T> {
  if (signalAfter) return attempt(signalAfter(ATTEMPT_TIMEOUT_MS));
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException(`no answer within ${ATTEMPT_TIMEOUT_MS} ms`, 'TimeoutError')), ATTEMPT_TIMEOUT_MS);
  timer.unref();
  try {
    return await attempt(controller.signal);
  } finally {
    clearTimeout(timer);
  }
}
