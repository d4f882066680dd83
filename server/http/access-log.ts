import type { Middleware } from 'koa';
import type { Logger } from '../log.js';
import type { AppState } from './context.js';

/** One line per request: method, path without its query (which may hold a token), status, time. */
export function accessLog(log: Logger): Middleware<AppState> {
  if (!log.enabled('info')) return (_ctx, next) => next();
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      log.info('request', {
        method: ctx.method,
        path: ctx.path,
        status: ctx.status,
        operation: ctx.state.operationId,
        ms: Math.round((performance.now() - started) * 10) / 10,
      });
    }
  };
}
