import type { Account } from '../accounts/account.js';
import { accountNow, type Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { OperationHandlers } from '../http/operation.js';
import type { AppContext } from '../http/context.js';
import type { AgreementRecord } from '../sessions/catalog.js';
import type { SessionService } from '../sessions/session-service.js';
import type { SessionRecord } from '../sessions/session.js';
import type { Store } from '../store/store.js';
import { pageScript } from '../system/page-script.js';
import { decidePayment, echoOf } from './payment-decision.js';
import { notFoundPage, paymentPage, resultPage } from './page.js';

/** Why a session's page shows no form. */
function noLongerPayable(session: SessionRecord): string {
  return session.status === 'paid'
    ? 'This payment has been made.'
    : session.status === 'expired'
      ? 'This payment expired before it was made.'
      : 'This payment failed; it can no longer be made.';
}

/** The payment page (INTERFACE.md §8): public, found by session id. */
export function payHandlers(store: Store, clock: Clock, sessions: SessionService): OperationHandlers {
  const load = async (id: string) => {
    const stored = await store.get<SessionRecord>('sessions', id);
    const account = stored && (await store.get<Account>('accounts', stored.account_id));
    if (!stored || !account) return null;
    const session = await sessions.read(account, id);
    const agreement = await store.get<AgreementRecord>('agreements', session.agreement_id);
    return { account, session, methods: agreement?.payment_methods ?? [] };
  };
  const html = (ctx: AppContext, status: number, page: string) => {
    ctx.status = status;
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page;
  };

  return {
    getPaymentScript: async (_request, ctx) => {
      ctx.type = 'text/javascript; charset=utf-8';
      ctx.body = await pageScript('pay');
    },
    showPaymentPage: async ({ params }, ctx) => {
      const id = params.session_id;
      const found = await load(id);
      if (!found) return html(ctx, 404, notFoundPage(id));
      const { account, session, methods } = found;
      if (session.status !== 'pending')
        return html(
          ctx,
          200,
          resultPage(session, 'Nothing left to pay', noLongerPayable(session), session.status === 'paid'),
        );
      html(ctx, 200, paymentPage(session, methods, accountNow(clock, account)));
    },
    payPaymentPage: async ({ params, body }, ctx) => {
      const id = params.session_id;
      const form = body ?? {};
      const found = await load(id);
      const decision = found
        ? decidePayment(form, found.session.status, found.methods)
        : ({ kind: 'refused', status: 404, code: 'NOT_FOUND', message: `session ${id} not found` } as const);
      const wantsJson = ctx.is('application/json') === 'application/json';
      if (decision.kind === 'refused') {
        if (wantsJson) throw new AppError(decision.code, { message: decision.message });
        if (!found) return html(ctx, 404, notFoundPage(id));
        const { session, methods, account } = found;
        return html(
          ctx,
          decision.status,
          session.status === 'pending'
            ? paymentPage(session, methods, accountNow(clock, account), decision.message, echoOf(form))
            : resultPage(session, 'Nothing left to pay', noLongerPayable(session), false),
        );
      }
      const { result, leg2 } = decision;
      const after = await sessions.payViaPage(
        found!.account,
        id,
        result.outcome === 'paid' ? { outcome: 'paid', leg2 } : result,
      );
      if (!wantsJson)
        return html(ctx, 200, resultPage(after, decision.title, decision.message, result.outcome === 'paid'));
      ctx.body = {
        session_id: id,
        status: after.status,
        outcome: result.outcome,
        ...(result.outcome === 'failed' ? { reason: result.reason } : {}),
        accreditation: after.accreditation.status,
      };
    },
  };
}
