import type { Middleware } from 'koa';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { AppState } from '../http/context.js';

/**
 * The account's rate brake (addendum §8): when the account has set a
 * per-minute limit, each request of its API counts in a fixed one-minute
 * window on the server clock; every answer carries X-RateLimit-*, and past
 * the limit the request is refused with 429 and Retry-After. Counts are per
 * server process.
 */
export function rateBrake(clock: Clock): Middleware<AppState> {
  const windows = new Map<string, { start: number; count: number }>();
  return async (ctx, next) => {
    const limit = ctx.state.account?.rate_limit_per_minute as number | null | undefined;
    if (!limit) return next();
    const now = clock.now();
    const start = now - (now % 60_000);
    const accountId = ctx.state.account!.account_id;
    let window = windows.get(accountId);
    if (!window || window.start !== start) {
      window = { start, count: 0 };
      windows.set(accountId, window);
    }
    window.count += 1;
    const resetAt = Math.ceil((start + 60_000) / 1000);
    const headers = {
      'X-RateLimit-Limit': String(limit),
      'X-RateLimit-Remaining': String(Math.max(0, limit - window.count)),
      'X-RateLimit-Reset': String(resetAt),
    };
    if (window.count > limit) {
      const retryAfter = String(Math.max(1, resetAt - Math.floor(now / 1000)));
      throw new AppError('RATE_LIMITED', `the rate brake allows ${limit} requests a minute; try again in ${retryAfter} s`, undefined, undefined, { ...headers, 'Retry-After': retryAfter });
    }
    ctx.set(headers);
    await next();
  };
}
