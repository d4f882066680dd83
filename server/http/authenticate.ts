import type { Middleware } from 'koa';
import type { OpenAPIV3_1 } from 'openapi-types';
import type { AccountService } from '../accounts/account-service.js';
import { appError } from '../errors.js';
import type { TokenKind } from '../accounts/account.js';
import type { AppState } from './context.js';

/**
 * Authentication declared by the document: an operation's `security` names
 * its scheme and `guards` maps each scheme to the middleware that checks it.
 * Operations with no security requirement pass through.
 */
export function authenticate(
  security: OpenAPIV3_1.SecurityRequirementObject[] | undefined,
  guards: Record<string, Middleware<AppState>>,
): Middleware<AppState> {
  const schemes = [...new Set((security ?? []).flatMap((requirement) => Object.keys(requirement)))];
  if (schemes.length === 0) return (_ctx, next) => next();
  if (schemes.length > 1) throw new Error(`one security scheme per operation is supported, got ${schemes.join(', ')}`);
  const guard = guards[schemes[0]!];
  if (!guard) throw new Error(`no authentication is implemented for security scheme ${schemes[0]}`);
  return guard;
}

/** Lets the request through only with a bearer token of one of `kinds`; puts its account on the state. */
export function requireToken(kinds: TokenKind[], accounts: AccountService): Middleware<AppState> {
  return async (ctx, next) => {
    const token = bearerToken(ctx.get('authorization'));
    if (!token) throw appError('INVALID_TOKEN', 'send the token as Authorization: Bearer <token>');
    const { account, kind } = await accounts.authenticate(token, kinds);
    ctx.state.account = account;
    ctx.state.tokenKind = kind;
    await next();
  };
}

export function bearerToken(header: string): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}
