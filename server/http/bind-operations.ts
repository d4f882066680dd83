import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { OpenAPIV3_1 } from 'openapi-types';
import { listOperations, rateLimitedPrefixes, type OperationEntry } from '../../contracts/openapi.js';
import type { AppContext, AppState } from './context.js';
import type { OperationHandlers, OperationRequest } from './operation.js';

/** A handler as the binder calls it: the request built for its operation. */
type BoundHandler = (request: OperationRequest<never>, ctx: AppContext) => Promise<void> | void;

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

  const byId = handlers as Record<string, BoundHandler | undefined>;
  for (const entry of operations) {
    const handler = byId[entry.handlerId];
    if (!handler)
      throw new Error(`operation ${entry.operationId} (${entry.method.toUpperCase()} ${entry.path}) has no handler`);
    const markOperation: Middleware<AppState> = (ctx, next) => {
      ctx.state.operationId = entry.operationId;
      return next();
    };
    const security = entry.operation.security ?? doc.security ?? [];
    const schemes = new Set(security.flatMap((requirement) => Object.keys(requirement)));
    const answer = answerWith(handler, schemes.size > 0, schemes.has('posSignature'));
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
        answer,
      ],
      { name: entry.operationId },
    );
  }
}

/**
 * The handler called with its request, built from what the guards left on
 * the state: validation has checked body, params and query against the
 * operation's schemas, so they are of its document types; authentication
 * has put the account (and a signed request's signature) there.
 */
function answerWith(handler: BoundHandler, authenticated: boolean, signed: boolean): Middleware<AppState> {
  return (ctx) => {
    const { body, params = {}, query = {}, account, signature } = ctx.state;
    if ((authenticated && !account) || (signed && !signature))
      throw new Error(`operation ${ctx.state.operationId} reached without its caller authenticated`);
    const request = { body, params, query, account, signature } as OperationRequest<never>;
    return handler(request, ctx);
  };
}

/** `/a/{id}/b` → `/a/:id/b` */
export function toRouterPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}
