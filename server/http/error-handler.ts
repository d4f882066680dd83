import type { Middleware } from 'koa';
import { AppError, DuplicateKeyError } from '../errors.js';
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
  if (thrown instanceof AppError) return thrown;
  if (thrown instanceof DuplicateKeyError)
    return new AppError('ALREADY_EXISTS', `${thrown.collection} ${thrown.id} already exists`);
  return new AppError('INTERNAL_ERROR', 'internal error; the server log has the details');
}
