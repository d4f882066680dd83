import type { Account } from '../accounts/account.js';
import { accountNow, type Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { OperationHandlers } from '../http/operation.js';
import type { AppContext } from '../http/context.js';
import type { AgreementRecord } from '../sessions/catalog.js';
import type { SessionService } from '../sessions/session-service.js';
import type { SessionRecord } from '../sessions/session.js';
import type { Store } from '../store/store.js';
import { methodFields, outcomeOfKey } from './magic-keys.js';
import { notFoundPage, paymentPage, resultPage } from './page.js';

/** Form names (method.field) whose values never come back in a page. */
const neverEchoed = new Set(
  Object.entries(methodFields).flatMap(([method, fields]) =>
    fields.filter((field) => field.neverEchoed).map((field) => `${method}.${field.name}`),
  ),
);

const reasons: Record<string, string> = {
  insufficient_funds: 'The payment failed: insufficient funds.',
  rejected_by_issuer: 'The payment failed: rejected by the issuer.',
  invalid_key: 'The payment failed: the payment key is not valid.',
};

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
      const wantsJson = ctx.is('application/json') === 'application/json';
      const form = body ?? {};
      const fail = (
        status: number,
        code: 'VALIDATION_FAILED' | 'NOT_FOUND' | 'SESSION_NOT_PAYABLE',
        message: string,
        session?: SessionRecord,
        methods: string[] = [],
        nowMs = 0,
      ) => {
        if (wantsJson) throw new AppError(code, { message });
        if (!session) return html(ctx, status, notFoundPage(id));
        // A refusal keeps what was chosen and typed, never the key, the card number or the security code.
        const echo = {
          ...(form.method ? { method: form.method } : {}),
          ...(form.leg2 ? { leg2: form.leg2 } : {}),
          fields: Object.fromEntries(
            Object.entries(form).filter(
              (entry): entry is [string, string] =>
                entry[1] !== undefined && entry[0].includes('.') && !neverEchoed.has(entry[0]),
            ),
          ),
        };
        html(
          ctx,
          status,
          session.status === 'pending'
            ? paymentPage(session, methods, nowMs, message, echo)
            : resultPage(session, 'Nothing left to pay', noLongerPayable(session), false),
        );
      };
      const found = await load(id);
      if (!found) return fail(404, 'NOT_FOUND', `session ${id} not found`);
      const { account, session, methods } = found;
      const now = accountNow(clock, account);
      if (session.status !== 'pending')
        return fail(
          409,
          'SESSION_NOT_PAYABLE',
          `this payment is ${session.status}, not pending`,
          session,
          methods,
          now,
        );
      const method = form.method ?? methods[0] ?? '';
      if (!methods.includes(method))
        return fail(
          400,
          'VALIDATION_FAILED',
          `method must be one of the agreement's: ${methods.join(', ')}`,
          session,
          methods,
          now,
        );
      // The page holds every method's fields, so it names them method.field; a JSON client may send them bare.
      const missing = (methodFields[method] ?? [])
        .filter((field) => !(form[`${method}.${field.name}`] ?? form[field.name])?.trim())
        .map((field) => field.label);
      if (missing.length > 0)
        return fail(400, 'VALIDATION_FAILED', `fill in: ${missing.join(', ')}`, session, methods, now);
      if (!form.payment_key?.trim())
        return fail(400, 'VALIDATION_FAILED', 'enter the payment key', session, methods, now);

      const result = outcomeOfKey(form.payment_key);
      const leg2 = form.leg2 === 'accreditation_failed' ? 'accreditation_failed' : 'accredited';
      const after = await sessions.payViaPage(
        account,
        id,
        result.outcome === 'paid' ? { outcome: 'paid', leg2 } : result,
      );
      const message =
        result.outcome === 'paid'
          ? `Paid. As you chose, the accreditation to the merchant will ${leg2 === 'accredited' ? 'succeed' : 'fail'}.`
          : result.outcome === 'expired'
            ? 'The session expired.'
            : reasons[result.reason]!;
      if (wantsJson) {
        ctx.body = {
          session_id: id,
          status: after.status,
          outcome: result.outcome,
          ...(result.outcome === 'failed' ? { reason: result.reason } : {}),
          accreditation: after.accreditation.status,
        };
        return;
      }
      html(
        ctx,
        200,
        resultPage(
          after,
          result.outcome === 'paid' ? 'Payment accepted' : 'Payment not completed',
          message,
          result.outcome === 'paid',
        ),
      );
    },
  };
}
