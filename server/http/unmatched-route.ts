import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { appError } from '../errors.js';
import type { AppState } from './context.js';

/** After the router: 404 for an unknown path, 405 with Allow for a known path and another method. */
export function unmatchedRoute(router: Router<AppState>): Middleware<AppState> {
  return async (ctx) => {
    if (ctx.state.operationId) return;
    const allowed = [...new Set(router.match(ctx.path, ctx.method).path.flatMap((layer) => layer.methods))];
    if (allowed.length === 0) throw appError('NOT_FOUND', `no route for ${ctx.method} ${ctx.path}`);
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      ctx.set('Allow', allowed.join(', '));
      return;
    }
    throw appError('METHOD_NOT_ALLOWED', ctx.method, ctx.path, allowed);
  };
}
