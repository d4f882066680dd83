import { BridgeError } from '../../errors.js';
import type { Fields } from '../../protocol/transbank/messages.js';
import { CLP } from '../../protocol/currencies.js';
import { APPROVED, describeResponseCode } from '../../protocol/transbank/response-codes.js';
import type { SaleInFlight } from './sale-journal.js';

// The Transbank bridge's decisions, as pure functions: which orders a POS
// can carry, and what the POS's answers prove about a request whose answer
// was lost. Nothing here touches the line, the server or the disk.

/** A POS Integrado sells whole Chilean pesos, at most 9 digits. */
export const MAX_AMOUNT = 999_999_999;

/**
 * Whether an order can be sent to the POS as a sale, and for how much. An
 * order in another currency, with a fraction, or too large for the amount
 * field is never truncated or converted: it is held, with this reason.
 */
export function saleAmount(order: { amount: number; currency: string }): { amount: number } | { reason: string } {
  if (order.currency !== CLP.alpha)
    return { reason: `its currency is ${order.currency}; a Transbank POS sells in Chilean pesos (CLP) only` };
  if (!Number.isInteger(order.amount))
    return { reason: `its amount ${order.amount} has a fraction; a Transbank POS sells whole pesos` };
  if (order.amount <= 0) return { reason: `its amount ${order.amount} is not positive` };
  if (order.amount > MAX_AMOUNT)
    return { reason: `its amount ${order.amount} has more than 9 digits, the most a POS Integrado sale carries` };
  return { amount: order.amount };
}

export type SaleVerdict =
  | {
      kind: 'approved';
      authorizationCode: string;
      operationNumber: string;
      cardType: string | null;
      last4Digits: string | null;
    }
  | { kind: 'declined'; responseCode: string }
  | { kind: 'unknown'; reason: string };

/** A sale's answer (0210/0271), read against the sale asked for. */
export function saleAnswer(asked: Extract<SaleInFlight, { kind: 'sale' }>, answer: Fields): SaleVerdict {
  const responseCode = String(answer.responseCode);
  if (responseCode !== APPROVED) return { kind: 'declined', responseCode };
  return approvedIfSame(asked, answer, 'its answer');
}

export type LastSaleVerdict = SaleVerdict | { kind: 'not-made'; why: string };

/**
 * What the POS's last sale (0260) proves about a sale whose answer never
 * arrived: the same ticket is that sale (approved, to commit); another
 * ticket, or no sale at all, means it was not made (a POS's last sale is
 * its last approved one), so the order may be sold again. A same ticket
 * with another amount, or an answer that says neither, proves nothing: the
 * order is held for an operator.
 */
export function lastSaleVerdict(asked: Extract<SaleInFlight, { kind: 'sale' }>, answer: Fields): LastSaleVerdict {
  const responseCode = String(answer.responseCode);
  if (responseCode === '11') return { kind: 'not-made', why: 'the POS has made no sale since it started' };
  if (responseCode !== APPROVED)
    return {
      kind: 'unknown',
      reason: `asked for its last sale, the POS answered ${describeResponseCode(responseCode, '0250')}`,
    };
  if (answer.ticket !== asked.ticket)
    return { kind: 'not-made', why: `the POS's last sale is ticket ${String(answer.ticket)}, not ${asked.ticket}` };
  return approvedIfSame(asked, answer, 'its last sale');
}

function approvedIfSame(asked: Extract<SaleInFlight, { kind: 'sale' }>, answer: Fields, what: string): SaleVerdict {
  if (answer.ticket !== asked.ticket || answer.amount !== asked.amount) {
    return {
      kind: 'unknown',
      reason: `the POS approved ticket ${String(answer.ticket)} for ${String(answer.amount)} CLP in ${what}, but ticket ${asked.ticket} was sent for ${asked.amount} CLP`,
    };
  }
  if (typeof answer.authorizationCode !== 'string' || answer.authorizationCode === '')
    return { kind: 'unknown', reason: `the POS approved ticket ${asked.ticket} without an authorization code` };
  return {
    kind: 'approved',
    authorizationCode: answer.authorizationCode,
    operationNumber: String(answer.operationNumber ?? ''),
    cardType: (answer.cardType as string | null) ?? null,
    last4Digits: (answer.last4Digits as string | null) ?? null,
  };
}

/**
 * A refund's answer (1210). A POS refunds an operation once: "already
 * refunded" (04) on a refund sent again after a lost answer is the proof
 * that the first one was made. A debit sale (08) and every other refusal
 * are held for an operator: the customer's money is not back.
 */
export function refundAnswer(
  responseCode: string,
): { kind: 'refunded'; note: string } | { kind: 'refused'; reason: string } {
  if (responseCode === APPROVED) return { kind: 'refunded', note: 'refunded by the POS' };
  if (responseCode === '04')
    return { kind: 'refunded', note: 'the POS had already refunded it (a refund sent again after a lost answer)' };
  if (responseCode === '08')
    return {
      kind: 'refused',
      reason: `the POS cannot refund a debit sale (${describeResponseCode(responseCode, '1200')}): refund the customer another way, then discard this, or resend it`,
    };
  return { kind: 'refused', reason: `the POS refused the refund: ${describeResponseCode(responseCode, '1200')}` };
}

/**
 * Whether a close whose answer was lost happened, from the POS's totals
 * now: a closed batch is empty. An empty batch after a close asked with
 * sales in it was closed; sales still there were not.
 */
export function closeHappened(totals: { transactionCount: number; total: number }): boolean {
  return totals.transactionCount === 0 && totals.total === 0;
}

/** The POS's totals (0710) of the open batch; throws, saying why, when it could not give them. */
export function totalsAnswer(answer: Fields): { transactionCount: number; total: number } {
  if (answer.responseCode !== '00')
    throw new BridgeError(
      'DEVICE_REFUSED',
      `the POS could not give its totals: ${describeResponseCode(String(answer.responseCode), '0700')}`,
      { dialect: 'transbank', deviceCode: String(answer.responseCode) },
    );
  return { transactionCount: answer.transactionCount as number, total: answer.total as number };
}
