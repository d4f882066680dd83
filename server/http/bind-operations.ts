import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { OpenAPIV3_1 } from 'openapi-types';
import { listOperations, rateLimitedPrefixes, type OperationEntry } from '../../contracts/openapi.js';
import type { AppState } from './context.js';

/** One handler per operationId of the document. */
export type OperationHandlers = Record<string, Middleware<AppState>>;

/** What runs before every handler: body, authentication and validation, per operation. */
export interface OperationGuards {
  readBody: Middleware<AppState>;
  authenticate(security: OpenAPIV3_1.SecurityRequirementObject[] | undefined): Middleware<AppState>;
  validate(entry: OperationEntry): Middleware<AppState>;
  /** After validation: checks that the resources named in the path belong to the caller. */
  scope: Middleware<AppState>;
  /** After authentication, on the paths the account's rate brake covers. */
  rateBrake: Middleware<AppState>;
}

/**
 * Registers every operation of the document on the router under its
 * operationId, with its guards in front of its handler. A documented
 * operation without a handler, or a handler for no documented operation,
 * stops the app from being built: the document and the routes cannot drift.
 */
export function bindOperations(
  router: Router<AppState>,
  doc: OpenAPIV3_1.Document,
  handlers: OperationHandlers,
  guards: OperationGuards,
): void {
  const operations = listOperations(doc);
  const documented = new Set(operations.map((entry) => entry.handlerId));
  const stray = Object.keys(handlers).filter((id) => !documented.has(id));
  if (stray.length > 0) throw new Error(`handlers for operations the document lacks: ${stray.join(', ')}`);

  for (const entry of operations) {
    const handler = handlers[entry.handlerId];
    if (!handler)
      throw new Error(`operation ${entry.operationId} (${entry.method.toUpperCase()} ${entry.path}) has no handler`);
    const markOperation: Middleware<AppState> = (ctx, next) => {
      ctx.state.operationId = entry.operationId;
      return next();
    };
    const braked = rateLimitedPrefixes.some((prefix) => entry.path.startsWith(prefix));
    router.register(
      toRouterPath(entry.path),
      [entry.method.toUpperCase()],
      [
        markOperation,
        guards.readBody,
        guards.authenticate(entry.operation.security ?? doc.security),
        ...(braked ? [guards.rateBrake] : []),
        guards.validate(entry),
        guards.scope,
        handler,
      ],
      { name: entry.operationId },
    );
  }
}

/** `/a/{id}/b` → `/a/:id/b` */
export function toRouterPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}
