import type { Middleware } from 'koa';
import type { AppState } from './context.js';
import type { PosSignatures } from '../terminals/pos-signatures.js';

/**
 * The posSignature scheme on requests under /api/v1/pos-terminals/{serialNumber}/**:
 * checks the signature and hands it to the handler as a value
 * (`request.signature`, with its terminal and account). The handler gives
 * it to the one write it makes, which claims it in the same step. When
 * the handler wrote nothing with it, it is claimed here afterwards: a
 * refusal (a replay, say) then replaces a successful answer, while a
 * handler that failed before writing answers its own error.
 */
export function posSignatureGuard(signatures: PosSignatures): Middleware<AppState> {
  return async (ctx, next) => {
    const signature = await signatures.verify({
      timestamp: ctx.get('x-pos-timestamp'),
      signature: ctx.get('x-pos-signature'),
      // The router's decoded path parameter: validation runs after authentication, so it reads the route's own.
      serial: ctx.params.serialNumber ?? '',
      url: ctx.originalUrl,
      rawBody: ctx.state.rawBody ?? Buffer.alloc(0),
    });
    ctx.state.signature = signature;
    ctx.state.account = signature.account;
    try {
      await next();
    } catch (error) {
      // Failed before its write: claimed all the same, so the same bytes cannot be replayed later to succeed.
      if (!signature.claimAttempted) await signatures.claimAlone(signature).catch(() => undefined);
      throw error;
    }
    await signatures.claimAlone(signature);
  };
}
