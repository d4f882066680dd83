import { command, ERRORS, INTERMEDIATE, POSITIVE } from '../../protocol/zvt/messages.js';
import type { Conversation } from './conversation.js';
import type { IssueOfGoods } from './requests.js';
import { endOfDayReceipt, transactionReceipt } from './receipts.js';
import { approvedStatus, endOfDayStatus, failedStatus } from './status-information.js';
import { abort, autoReverse, complete, deliverStatus, intermediate, printReceipt } from './flow-steps.js';
import {
  closeTurnover,
  noted,
  reserve,
  reversible,
  store,
  takeNumbers,
  takeTrace,
  totals,
  type StoredTransaction,
} from './zvt-state.js';

// The transactions of an emulated ZVT terminal (PA00P015 §2), each from
// the cash register's command to the Completion or Abort that hands the
// line back. Money rule (PA00P015 §2.2.8): a transaction is stored only
// once the cash register has acknowledged its status information and
// every print command of its receipt; otherwise the terminal reverses it
// by itself and notes the auto-reversal in its journal.

export interface PaymentRequest extends IssueOfGoods {
  kind: 'payment' | 'refund' | 'reservation';
  amount: number;
  currencySent: boolean;
}

/**
 * Authorisation (06 01), refund (06 31) and pre-authorisation (06 22): the card, the host's answer, then stored
 * once acknowledged. A pre-authorisation reserves the money (no receipt when it succeeds, §2.2.7); 06 23, 06 24
 * or 06 25 end it (reservations.ts).
 */
export async function pay(c: Conversation, request: PaymentRequest): Promise<void> {
  await c.answer(POSITIVE);
  if (!(await intermediate(c, INTERMEDIATE.insertCard, 'nothing was paid'))) return;
  if ((await c.presentCard()) !== 'card') return abort(c, ERRORS.abortedByTimeoutOrKey);
  const resultCode = c.outcome(request.amount);
  const card = c.drawCard();
  const at = c.now();
  // A pre-authorisation is carried as a payment until it is stored as a reservation.
  const storedKind = request.kind === 'reservation' ? 'payment' : request.kind;
  if (resultCode !== 0) {
    const taken = takeTrace(c.state);
    c.commit(taken.state);
    c.log(`${request.kind} of ${request.amount} declined with ${resultCode.toString(16).padStart(2, '0')}`);
    await c.tell(
      command(
        'statusInformation',
        failedStatus(resultCode, c.state.terminalId, {
          amount: request.amount,
          trace: taken.trace,
          at,
          currencySent: request.currencySent,
          cardType: card.type,
        }),
      ),
    );
    const lines = transactionReceipt(
      c.state.terminalId,
      { kind: request.kind, trace: taken.trace, amount: request.amount, at: at.toISOString(), card },
      resultCode,
    );
    await printReceipt(c, lines, false);
    return abort(c, resultCode);
  }
  // The numbers are written before they go on the line: a restart never gives them twice.
  const taken = takeNumbers(c.state);
  c.commit(taken.state);
  const { aid, ...cardOnly } = card;
  const transaction: StoredTransaction = {
    kind: storedKind,
    trace: taken.trace,
    receipt: taken.receipt,
    amount: request.amount,
    at: at.toISOString(),
    card: cardOnly,
    aid,
  };
  const status = approvedStatus({ transaction, currencySent: request.currencySent, terminalId: c.state.terminalId });
  const goods = request.kind === 'refund' ? undefined : { ...request };
  if (request.kind === 'reservation') return reserveOnceTaken(c, transaction, status, goods!);
  await finish(c, transaction, status, goods);
}

/** A pre-authorisation's status information: once acknowledged, the money is reserved; else released by itself. */
async function reserveOnceTaken(
  c: Conversation,
  transaction: StoredTransaction,
  status: Buffer,
  goods: IssueOfGoods & { amount: number },
): Promise<void> {
  const delivered = await deliverStatus(c, status, goods);
  if (!delivered.ok) return autoReverse(c, transaction, delivered, 'pre-authorisation');
  const amount = delivered.issued ?? transaction.amount;
  const { kind: _kind, ...reservation } = transaction;
  c.commit(reserve(c.state, { ...reservation, amount }));
  c.log(
    `pre-authorisation reserved: receipt ${transaction.receipt}, trace ${transaction.trace}, ${amount} minor units, authorisation ${transaction.aid}`,
  );
  await complete(c);
}

/** An approved transaction's status information and receipt; stored only once both are acknowledged. */
async function finish(
  c: Conversation,
  transaction: StoredTransaction,
  status: Buffer,
  goods?: IssueOfGoods & { amount: number },
): Promise<void> {
  const delivered = await deliverStatus(c, status, goods);
  if (!delivered.ok) return autoReverse(c, transaction, delivered);
  // Goods issued in part: the rest is reversed, never the whole (§2.2.6 d forbids it: the receipt would be wrong).
  const stored =
    delivered.issued !== undefined && delivered.issued < transaction.amount
      ? partlyIssued(c, transaction, delivered.issued)
      : transaction;
  const lines = transactionReceipt(c.state.terminalId, stored, 0);
  const printed = await printReceipt(c, lines, false);
  if (!printed.ok) return autoReverse(c, stored, printed);
  c.commit(store(c.state, stored, { statusInformation: status.toString('hex'), lines, admin: false }));
  c.log(
    `${stored.kind} stored: receipt ${stored.receipt}, trace ${stored.trace}, ${stored.amount} minor units, authorisation ${stored.aid}`,
  );
  await complete(c);
}

/** The transaction as it stands after a partial issue of goods: the price of what went out. */
function partlyIssued(c: Conversation, transaction: StoredTransaction, issued: number): StoredTransaction {
  const event = `partial issue of goods: ${issued} of ${transaction.amount} minor units (receipt ${transaction.receipt}); ${transaction.amount - issued} reversed`;
  c.commit(noted(c.state, c.now().toISOString(), event));
  c.log(event);
  return { ...transaction, amount: issued };
}

/** A transaction named by a receipt number refused: status information with the error, then Abort with it. */
export async function refuseByReceipt(
  c: Conversation,
  code: number,
  request: { receipt: number; currencySent: boolean },
): Promise<void> {
  await c.tell(
    command(
      'statusInformation',
      failedStatus(code, c.state.terminalId, { receipt: request.receipt, currencySent: request.currencySent }),
    ),
  );
  await abort(c, code);
}

export interface ReversalRequest {
  receipt: number;
  amount?: number;
  currencySent: boolean;
}

const REVERSAL_ERRORS = {
  'already-reversed': ERRORS.alreadyReversed,
  'not-in-turnover': ERRORS.reversalNotPossible,
  'amount-differs': ERRORS.amountWrong,
} as const;

/** Reversal (06 30) of a payment still in the turnover, by its receipt number. */
export async function reverse(c: Conversation, request: ReversalRequest): Promise<void> {
  await c.answer(POSITIVE);
  const found = reversible(c.state, request.receipt, request.amount);
  if ('error' in found) {
    c.log(`reversal of receipt ${request.receipt} refused: ${found.error}`);
    return refuseByReceipt(c, REVERSAL_ERRORS[found.error], request);
  }
  const taken = takeNumbers(c.state);
  c.commit(taken.state);
  const { payment } = found;
  const transaction: StoredTransaction = {
    kind: 'reversal',
    trace: taken.trace,
    receipt: taken.receipt,
    amount: payment.amount,
    at: c.now().toISOString(),
    card: payment.card,
    aid: payment.aid,
    reverses: payment.receipt,
  };
  await finish(
    c,
    transaction,
    approvedStatus({
      transaction,
      originalTrace: payment.trace,
      currencySent: request.currencySent,
      terminalId: c.state.terminalId,
    }),
  );
}

/** End of day (06 50): the turnover goes to the host and starts again; its totals go to the cash register. */
export async function endOfDay(c: Conversation, currencySent: boolean): Promise<void> {
  await c.answer(POSITIVE);
  if (!(await intermediate(c, INTERMEDIATE.waitingForHost, 'the end of day did not run'))) return;
  const at = c.now();
  const sums = totals(c.state);
  const taken = takeTrace(c.state);
  const status = endOfDayStatus(sums, taken.trace, at, currencySent);
  const lines = endOfDayReceipt(c.state.terminalId, at.toISOString(), sums);
  // The host has the turnover now: it is closed whether or not the cash register hears of it.
  c.commit(closeTurnover(taken.state, { statusInformation: status.toString('hex'), lines, admin: true }));
  c.log(`end of day: ${sums.count} transaction(s), total ${sums.total} minor units; the turnover starts again`);
  const delivered = await deliverStatus(c, status);
  if (!delivered.ok) {
    c.log(
      `end-of-day totals not taken by the cash register (${delivered.why}); repeat receipt (06 20) sends them again`,
    );
    if (!delivered.lineWorks) return c.giveUpLine(delivered.why);
  }
  await printReceipt(c, lines, true);
  await complete(c);
}
