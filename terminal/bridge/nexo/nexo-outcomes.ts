import { EUR } from '../../protocol/currencies.js';
import type { Body } from '../../protocol/nexo/messages.js';
import type { AskOutcome, DialectContext } from '../dialect.js';
import type { NexoInFlight, NexoJournal } from './nexo-journal.js';

// What a nexo terminal's answer means for the order, the journal and the
// server: a payment approved, declined or never run; a reversal done or
// not; a reconciliation and the settlement it makes. Whether the answer
// came at once or through TransactionStatus after a fault, it is read here.

/**
 * Failures that took no money and say nothing of the card: the terminal
 * was busy, restarted during the payment (Aborted: the bridge itself never
 * aborts), or could not reach its host. The order is asked again, unlike a
 * refusal, which waits for the cashier (svc-terminal retry).
 */
export const NOT_RUN = new Set(['Busy', 'Aborted', 'DeviceOut', 'UnavailableService']);

/** The Response part of a message body (empty when it has none). */
export const result = (body: Body | undefined) => (body?.Response as Body | undefined) ?? {};

export async function paymentEnded(
  context: DialectContext,
  journal: NexoJournal,
  asked: Extract<NexoInFlight, { kind: 'payment' }>,
  body: Body | undefined,
): Promise<AskOutcome> {
  const answer = result(body);
  if (answer.Result === 'Success') {
    const poi = (body!.POIData as Body).POITransactionID as Body;
    const transactionId = String(poi.TransactionID);
    await journal.paid({
      orderId: asked.orderId,
      transactionId,
      transactionTime: String(poi.TimeStamp ?? context.iso()),
      amount: asked.amount,
      currency: asked.currency,
      authorizationCode: authorizationOf(transactionId),
      paidAt: context.iso(),
    });
    context.log(`payment ${asked.orderId} approved (${transactionId}); committing it on the server`);
    return { asked: true, recorded: true };
  }
  if (typeof answer.ErrorCondition === 'string' && NOT_RUN.has(answer.ErrorCondition)) {
    context.log(
      `payment ${asked.orderId}: the terminal did not run it (${answer.ErrorCondition}); asked again at a later cycle under a new ServiceID`,
    );
    await journal.nothingInFlight();
    return { asked: false };
  }
  const condition = String(answer.ErrorCondition ?? 'Failure');
  await journal.decline(`payment:${asked.orderId}`, { condition, at: context.iso() });
  context.log(
    `payment ${asked.orderId} declined (${condition}${answer.AdditionalResponse ? `: ${new URLSearchParams(String(answer.AdditionalResponse)).get('refusalReason') ?? new URLSearchParams(String(answer.AdditionalResponse)).get('message') ?? ''}` : ''}); the order stays PENDING until svc-terminal retry ${asked.orderId}`,
  );
  return { asked: true };
}

export async function reversalEnded(
  context: DialectContext,
  journal: NexoJournal,
  asked: Extract<NexoInFlight, { kind: 'reversal' }>,
  body: Body | undefined,
): Promise<AskOutcome> {
  const answer = result(body);
  if (answer.Result === 'Success') {
    const reversal = String(
      ((body!.POIData as Body | undefined)?.POITransactionID as Body | undefined)?.TransactionID ?? '',
    );
    await journal.voided(asked.orderId, context.iso(), reversal);
    context.log(`reversal of ${asked.orderId} done; committing the void on the server`);
    return { asked: true, recorded: true };
  }
  await journal.nothingInFlight();
  await context.hold(
    'void',
    asked.orderId,
    `the terminal did not reverse it (${String(answer.ErrorCondition ?? answer.Result)})`,
  );
  return { asked: false };
}

export async function reconciliationEnded(
  context: DialectContext,
  journal: NexoJournal,
  asked: Extract<NexoInFlight, { kind: 'reconciliation' }>,
  body: Body | undefined,
): Promise<void> {
  const { state, iso, log, error } = context;
  const answer = result(body);
  const pending = await state.pendingClose();
  if (answer.Result !== 'Success') {
    await journal.nothingInFlight();
    if (pending?.closeId === asked.closeId) await state.closeDone(pending, iso());
    return error(
      `the terminal did not reconcile (${String(answer.ErrorCondition ?? answer.Result)}); type close (or wait for --close-at) to try again`,
    );
  }
  const totals = (body!.TransactionTotals as Body[] | undefined) ?? [];
  const count = totals
    .flatMap((entry) => (entry.PaymentTotals as Body[] | undefined) ?? [])
    .reduce((sum, entry) => sum + Number(entry.TransactionCount ?? 0), 0);
  const currency = String(totals[0]?.PaymentCurrency ?? lastCurrency(journal) ?? EUR.alpha);
  await journal.reconciled(
    asked,
    { count, currency, reconciliationId: String(body!.POIReconciliationID ?? '') },
    state.serial,
    iso(),
  );
  if (pending?.closeId === asked.closeId) await state.closeDone(pending, iso());
  log(
    `reconciliation ${String(body!.POIReconciliationID)}: ${count} transaction(s); settlement ${asked.batchNumber} for the server`,
  );
}

function lastCurrency(journal: NexoJournal): string | undefined {
  return Object.values(journal.snapshot.payments).at(-1)?.currency;
}

/** The authorization code the server is told: the PSP reference (the TransactionID after its dot), letters and digits, 32 at most. */
export function authorizationOf(transactionId: string): string {
  const psp = transactionId.includes('.') ? transactionId.slice(transactionId.lastIndexOf('.') + 1) : transactionId;
  return psp.replace(/[^A-Za-z0-9]/g, '').slice(-32) || 'NEXO';
}
