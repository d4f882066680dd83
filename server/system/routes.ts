import type { OpenAPIV3_1 } from 'openapi-types';
import type { OperationHandlers } from '../http/bind-operations.js';
import type { Store } from '../store/store.js';
import { version } from '../version.js';

export function systemHandlers(store: Store, doc: OpenAPIV3_1.Document, startedAt: number): OperationHandlers {
  return {
    getHealth: async (ctx) => {
      ctx.body = { status: 'ok', store: store.kind, uptime_s: Math.round((performance.now() - startedAt) / 100) / 10, version };
    },
    getOpenApiDocument: async (ctx) => {
      ctx.body = doc;
    },
  };
}
