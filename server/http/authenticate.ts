import type { Middleware } from 'koa';
import type { OpenAPIV3_1 } from 'openapi-types';
import { kindsByScheme } from '../accounts/account.js';
import type { AccountService } from '../accounts/account-service.js';
import { InvalidTokenError } from '../errors.js';
import type { AppState, TokenKind } from './context.js';

/**
 * Authentication declared by the document: an operation's `security` names
 * the scheme, the scheme names the token kinds it accepts. Operations with
 * no security requirement pass through.
 */
export function authenticate(security: OpenAPIV3_1.SecurityRequirementObject[] | undefined, accounts: AccountService): Middleware<AppState> {
  const schemes = (security ?? []).flatMap((requirement) => Object.keys(requirement));
  const unknown = schemes.filter((scheme) => !(scheme in kindsByScheme));
  if (unknown.length > 0) throw new Error(`no authentication is implemented for security scheme ${unknown.join(', ')}`);
  const allowed = [...new Set(schemes.flatMap((scheme) => kindsByScheme[scheme]!))];
  if (allowed.length === 0) return (_ctx, next) => next();
  return requireToken(allowed, accounts);
}

/** Lets the request through only with a bearer token of one of `kinds`; puts its account on the state. */
export function requireToken(kinds: TokenKind[], accounts: AccountService): Middleware<AppState> {
  return async (ctx, next) => {
    const token = bearerToken(ctx.get('authorization'));
    if (!token) throw new InvalidTokenError('send the token as Authorization: Bearer <token>');
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
