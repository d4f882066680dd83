import type { OpenAPIV3_1 } from 'openapi-types';
import { isAppError, STORE_RETRY_AFTER_S } from '../errors.js';
import type { OperationHandlers } from '../http/operation.js';
import type { Store } from '../store/store.js';
import { version } from '../version.js';
import type { AppContext } from '../http/context.js';
import { favicon, homePage } from './home.js';

export function systemHandlers(
  store: Store,
  doc: OpenAPIV3_1.Document,
  startedAt: number,
  publicUrl: (ctx: AppContext) => string,
): OperationHandlers {
  return {
    showHome: (_request, ctx) => {
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = homePage(version, publicUrl(ctx));
    },
    getFavicon: (_request, ctx) => {
      ctx.type = 'image/x-icon';
      ctx.set('Cache-Control', 'public, max-age=86400');
      ctx.body = favicon;
    },
    getHealth: async (_request, ctx) => {
      const uptime_s = Math.round((performance.now() - startedAt) / 100) / 10;
      try {
        await store.ping();
        ctx.body = { status: 'ok', store: store.kind, uptime_s, version };
      } catch (error) {
        // The process is alive but cannot serve: 503, saying why, so a load balancer sends requests elsewhere meanwhile.
        if (!isAppError(error, 'STORE_UNAVAILABLE')) throw error;
        ctx.status = 503;
        ctx.set('Retry-After', String(STORE_RETRY_AFTER_S));
        ctx.body = { status: 'store_unavailable', store: store.kind, uptime_s, version, reason: error.message };
      }
    },
    getOpenApiDocument: (_request, ctx) => {
      ctx.body = doc;
    },
  };
}
