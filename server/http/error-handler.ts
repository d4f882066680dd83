import type { Middleware } from 'koa';
import { AppError, appError, isAppError } from '../errors.js';
import type { AppState } from './context.js';

/**
 * First in the chain: turns whatever is thrown into INTERFACE.md's error
 * body. Only AppErrors say what went wrong; anything else is a 500 whose
 * details stay in the log (emitted through app.on('error')).
 */
export function errorHandler(): Middleware<AppState> {
  return async (ctx, next) => {
    try {
      await next();
    } catch (thrown) {
      const error = toAppError(thrown);
      ctx.status = error.status;
      ctx.body = error.toBody();
      for (const [name, value] of Object.entries(error.headers ?? {})) ctx.set(name, value);
      if (error.code === 'INTERNAL_ERROR') ctx.app.emit('error', thrown, ctx);
    }
  };
}

function toAppError(thrown: unknown): AppError {
  if (isAppError(thrown, 'DUPLICATE_KEY'))
    return appError('ALREADY_EXISTS', `${String(thrown.extra?.collection)} ${String(thrown.extra?.id)} already exists`);
  if (isAppError(thrown) && !thrown.internal) return thrown;
  return appError('INTERNAL_ERROR', 'internal error; the server log has the details');
}
