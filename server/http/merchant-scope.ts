import type { Middleware } from 'koa';
import { appError } from '../errors.js';
import type { AppState } from './context.js';

/**
 * On /merchants/{merchantId}/** paths: another account's merchant id answers
 * 404 like an unknown one, never 403 (INTERFACE.md §1).
 */
export const merchantScope: Middleware<AppState> = async (ctx, next) => {
  const merchantId = ctx.state.params?.merchantId;
  if (merchantId !== undefined && merchantId !== ctx.state.account?.merchant_id)
    throw appError('NOT_FOUND', `merchant ${merchantId}`);
  await next();
};
