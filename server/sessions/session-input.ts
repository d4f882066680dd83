import type { Account } from '../accounts/account.js';
import { newId } from '../accounts/secrets.js';
import { AppError, appError, type ErrorDetail, isAppError } from '../errors.js';
import type { Transaction } from '../store/store.js';
import { owned, type AgreementRecord, type PartnerRecord } from './catalog.js';
import { toCents } from './money.js';
import { splitLinkKey } from './record-keys.js';
import type { Origin, SessionRecord } from './session.js';

/** The body of a session creation (schema SessionCreateRequest). */
export interface SessionInput {
  agreement_id: string;
  amount_reference: number;
  currency_reference?: string;
  due_date_session?: string;
  due_date_reached_behavior?: 'expire' | 'keep_active';
  webhook_url?: string;
  description?: string;
  split?: { distribution: Array<{ partner_id: string; amount_reference: number }> };
}

/**
 * The refusal a SESSION_ITEM_REFUSED error carries: the error one session's
 * input would answer alone, and the field inside the item it points at.
 */
function itemRefusal(error: AppError<'SESSION_ITEM_REFUSED'>): { refusal: AppError; pointer: string } {
  const { refusal, pointer } = error.extra ?? {};
  if (!isAppError(refusal) || typeof pointer !== 'string') throw new Error('SESSION_ITEM_REFUSED without its refusal');
  return { refusal, pointer };
}

/**
 * The refused item's error as the operation answers it, with the pointer
 * under `prefix` (e.g. /sessions/3): an unknown id stays a 404 (INTERFACE.md
 * §0), naming where.
 */
export function itemAnswer(error: AppError<'SESSION_ITEM_REFUSED'>, prefix = ''): AppError {
  const { refusal, pointer: inside } = itemRefusal(error);
  const pointer = `${prefix}${inside}`;
  if (refusal.code === 'NOT_FOUND')
    return new AppError('NOT_FOUND', { message: prefix ? `${pointer}: ${refusal.message}` : refusal.message });
  return appError('VALIDATION_FAILED', [{ in: 'body', pointer, message: refusal.message }]);
}

/** A refused item's own error, as it would answer alone (an unknown id: 404 as it is). */
export const itemOwnError = (error: AppError<'SESSION_ITEM_REFUSED'>): AppError => itemRefusal(error).refusal;

/**
 * Checks a session against the account's catalog (INTERFACE.md §5) and builds
 * it: the agreement and every partner must be the account's (else 404); on
 * a split agreement each partner must be linked to it (else 400); the
 * distribution may not exceed the amount; the currency is the agreement's.
 */
export async function buildSession(
  tx: Pick<Transaction, 'get'>,
  account: Account,
  input: SessionInput,
  origin: Origin,
  now: string,
): Promise<SessionRecord> {
  const fail = (error: AppError, pointer: string): never => {
    throw appError('SESSION_ITEM_REFUSED', error, pointer);
  };
  const invalid = (pointer: string, message: string) =>
    fail(appError('VALIDATION_FAILED', [{ in: 'body', pointer, message }] as ErrorDetail[], message), pointer);

  // Only an unknown id is the input's fault; anything else (the database away) passes through unchanged.
  const notFoundAt =
    (pointer: string) =>
    (error: unknown): never => {
      if (isAppError(error, 'NOT_FOUND')) fail(error, pointer);
      throw error;
    };
  const agreement = await owned<AgreementRecord>(tx, 'agreements', input.agreement_id, account, 'agreement').catch(
    notFoundAt('/agreement_id'),
  );
  if (input.currency_reference !== undefined && input.currency_reference !== agreement.currency_reference) {
    invalid('/currency_reference', `must be the agreement's currency, ${agreement.currency_reference}`);
  }
  const amountCents = toCents(input.amount_reference);
  const distribution: SessionRecord['distribution'] = [];
  for (const [index, part] of (input.split?.distribution ?? []).entries()) {
    const pointer = `/split/distribution/${index}/partner_id`;
    await owned<PartnerRecord>(tx, 'partners', part.partner_id, account, 'partner').catch(notFoundAt(pointer));
    if (distribution.some((seen) => seen.partner_id === part.partner_id))
      invalid(pointer, 'a partner may appear once in a distribution');
    // A split agreement needs each partner linked; with split: false the distribution is accepted as is (INTERFACE.md §0).
    if (agreement.split && !(await tx.get('split_links', splitLinkKey(agreement.agreement_id, part.partner_id)))) {
      invalid(pointer, 'the partner has no split-reception agreement with this agreement');
    }
    distribution.push({ partner_id: part.partner_id, amount_cents: toCents(part.amount_reference) });
  }
  if (distribution.reduce((sum, part) => sum + part.amount_cents, 0) > amountCents) {
    invalid('/split/distribution', 'the distribution adds up to more than amount_reference');
  }
  return {
    session_id: newId('ses'),
    account_id: account.account_id,
    status: 'pending',
    agreement_id: agreement.agreement_id,
    amount_cents: amountCents,
    currency_reference: agreement.currency_reference,
    due_date_session: input.due_date_session === undefined ? null : new Date(input.due_date_session).toISOString(),
    due_date_reached_behavior: input.due_date_reached_behavior ?? 'expire',
    webhook_url: input.webhook_url ?? null,
    description: input.description ?? null,
    created_at: now,
    origin,
    payment_id: newId('pay'),
    distribution,
    accreditation: { status: 'none' },
    event_seq: 0,
  };
}
