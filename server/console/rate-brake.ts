import type { Middleware } from 'koa';
import type { Clock } from '../clock.js';
import { appError } from '../errors.js';
import type { AppState } from '../http/context.js';
import type { Store } from '../store/store.js';

/** Counts an account's requests in a one-minute window; answers the count including this one. */
export interface RateCounter {
  hit(accountId: string, windowStart: number): Promise<number>;
}

/** One process: counts in memory, one window per account. */
export function memoryRateCounter(): RateCounter {
  const windows = new Map<string, { start: number; count: number }>();
  return {
    async hit(accountId, windowStart) {
      let window = windows.get(accountId);
      if (!window || window.start !== windowStart) windows.set(accountId, (window = { start: windowStart, count: 0 }));
      window.count += 1;
      return window.count;
    },
  };
}

/** Several instances on one database: the count is a record, so every instance counts together. */
export function storeRateCounter(store: Store): RateCounter {
  return {
    hit: (accountId, windowStart) =>
      store.transact(async (tx) => {
        const key = `${accountId}:${windowStart}`;
        const count = ((await tx.get<{ count: number }>('rate_windows', key))?.count ?? 0) + 1;
        tx.put('rate_windows', key, { key, account_id: accountId, window_start: windowStart, count });
        // The previous window is done with.
        tx.delete('rate_windows', `${accountId}:${windowStart - 60_000}`);
        return count;
      }),
  };
}

/**
 * The account's rate brake (INTERFACE.md §8): when the account has set a
 * per-minute limit, each request of its API counts in a fixed one-minute
 * window on the server clock; every answer carries X-RateLimit-*, and past
 * the limit the request is refused with 429 and Retry-After. Counts are per
 * process with the embedded store, shared through the database otherwise.
 */
export function rateBrake(clock: Clock, counter: RateCounter = memoryRateCounter()): Middleware<AppState> {
  return async (ctx, next) => {
    const { account } = ctx.state;
    const limit = account?.rate_limit_per_minute as number | null | undefined;
    if (!account || !limit) return next();
    const now = clock.now();
    const start = now - (now % 60_000);
    const count = await counter.hit(account.account_id, start);
    const resetAt = Math.ceil((start + 60_000) / 1000);
    const headers = {
      'X-RateLimit-Limit': String(limit),
      'X-RateLimit-Remaining': String(Math.max(0, limit - count)),
      'X-RateLimit-Reset': String(resetAt),
    };
    if (count > limit) {
      const retryAfter = String(Math.max(1, resetAt - Math.floor(now / 1000)));
      throw appError('RATE_LIMITED', limit, retryAfter, headers);
    }
    ctx.set(headers);
    await next();
  };
}
