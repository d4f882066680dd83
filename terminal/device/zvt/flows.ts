import { hex } from '../../protocol/frame.js';
import { bcdValue } from '../../protocol/zvt/bcd.js';
import { decodeFields, encodeFields, fieldOf } from '../../protocol/zvt/bitmaps.js';
import { command, CONFIG, ERRORS, INTERMEDIATE, isPositive, POSITIVE } from '../../protocol/zvt/messages.js';
import { encodeApdu } from '../../protocol/zvt/apdu.js';
import type { Conversation, Reply } from './conversation.js';
import type { IssueOfGoods } from './requests.js';
import { endOfDayReceipt, printLineData, textBlockData, transactionReceipt } from './receipts.js';
import { approvedStatus, endOfDayStatus, failedStatus } from './status-information.js';
import {
  closeTurnover,
  noted,
  reserve,
  reversible,
  store,
  takeNumbers,
  takeTrace,
  totals,
  type Registration,
  type StoredTransaction,
} from './zvt-state.js';

// The transactions of an emulated ZVT terminal (PA00P015 §2), each from
// the cash register's command to the Completion or Abort that hands the
// line back. Money rule (PA00P015 §2.2.8): a transaction is stored only
// once the cash register has acknowledged its status information and
// every print command of its receipt; otherwise the terminal reverses it
// by itself and notes the auto-reversal in its journal.

export const SOFTWARE_VERSION = 'svc-pos-sim ZVT 1.0';
/** The 2 s a terminal waits before it sends status information again after 84 9C (PA00P015 §2.2.6). */
export const REPEAT_AFTER_MS = 2000;

export type Ack = { ok: true } | { ok: false; why: string; lineWorks: boolean };

const refusal = (reply: Extract<Reply, { answered: true }>) => hex(encodeApdu(reply.answer));

/** Sends a message whose answer must be positive: a refusal or no answer says why. */
export async function acknowledged(c: Conversation, message: ReturnType<typeof command>): Promise<Ack> {
  const reply = await c.tell(message);
  if (!reply.answered) return { ok: false, why: reply.why, lineWorks: false };
  if (!isPositive(reply.answer)) return { ok: false, why: `answered ${refusal(reply)}`, lineWorks: true };
  return { ok: true };
}

/** How long the terminal waits for the answer to its status information during the issue of goods (§2.2.1). */
export const ISSUE_OF_GOODS_MS = 30_000;

/** What the cash register's answer to status information said of the goods (PA00P015 §2.2.6). */
type Delivered = Ack & { exceeded?: true; issued?: number };

/** The price of the goods issued, from 84 9D's data (04 and 6 BCD bytes); undefined when it is not that. */
function issuedAmount(data: Buffer): number | undefined {
  try {
    const fields = decodeFields(data);
    const amount = fieldOf(fields, 0x04);
    return fields.length === 1 && amount ? bcdValue(amount) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Status information until the cash register takes it; 84 9C asks for it again after 2 s, up to `goods.maxStatusInfos`
 * times. With `goods` (a payment or a pre-authorisation) the answer may wait for the issue of goods: bitmap 01's
 * seconds, 30 by default; and 84 9D with an amount says the goods went out in part (§2.2.6 d).
 */
async function deliverStatus(
  c: Conversation,
  data: Buffer,
  goods?: IssueOfGoods & { amount: number },
): Promise<Delivered> {
  // A time-out of 00 gives no time at all: taken as not sent (the default), not as an auto-reversal at once.
  const waitMs = goods ? (goods.timeoutSeconds || ISSUE_OF_GOODS_MS / 1000) * 1000 : undefined;
  for (let sent = 1; ; sent++) {
    const reply = await c.tell(command('statusInformation', data), waitMs);
    if (!reply.answered) return { ok: false, why: reply.why, lineWorks: false };
    if (isPositive(reply.answer)) return { ok: true };
    const { cls, ins } = reply.answer;
    if (goods && cls === 0x84 && ins === ERRORS.partialIssue) {
      const issued = issuedAmount(reply.answer.data);
      if (issued !== undefined && issued > 0 && issued <= goods.amount) return { ok: true, issued };
      return {
        ok: false,
        why: `84 9D without a price of the goods issued (0 < price <= ${goods.amount}): ${refusal(reply)}`,
        lineWorks: true,
      };
    }
    if (cls !== 0x84 || ins !== ERRORS.pleaseWait)
      return { ok: false, why: `status information answered ${refusal(reply)}`, lineWorks: true };
    if (goods?.maxStatusInfos !== undefined && sent > goods.maxStatusInfos)
      return {
        ok: false,
        why: `84 9C more often than max. status-infos (${goods.maxStatusInfos})`,
        lineWorks: true,
        exceeded: true,
      };
    await c.wait(REPEAT_AFTER_MS);
  }
}

/**
 * Intermediate status (04 FF), which the cash register asked for in its registration: answered, the transaction
 * goes on. Refused, it ends with Abort (§2.2.9); unanswered within T3 the line is given up (PA00P016 §5.2.5 a).
 */
export async function intermediate(c: Conversation, status: number, what: string): Promise<boolean> {
  if (!(c.state.registration.configByte & CONFIG.intermediateStatus)) return true;
  const ack = await acknowledged(c, command('intermediateStatus', Buffer.of(status)));
  if (ack.ok) return true;
  c.log(`the cash register did not take the intermediate status (${ack.why}); ${what}`);
  if (!ack.lineWorks) c.giveUpLine(ack.why);
  else await abort(c, ERRORS.abortedByTimeoutOrKey);
  return false;
}

/** Whether the receipt goes to the cash register, and how (PA00P015 §2.1, table 1). */
function receiptRoute(registration: Registration, admin: boolean): 'terminal' | 'ecr-compiles' | 'lines' | 'blocks' {
  const ecrPrints = admin ? CONFIG.ecrPrintsAdminReceipts : CONFIG.ecrPrintsPaymentReceipts;
  if (!(registration.configByte & ecrPrints)) return 'terminal';
  if (!(registration.configByte & CONFIG.printViaEcr)) return 'ecr-compiles';
  return registration.textBlocks ? 'blocks' : 'lines';
}

/** Prints a receipt where the registration says; every print command must be answered positively. */
export async function printReceipt(c: Conversation, lines: string[], admin: boolean): Promise<Ack> {
  switch (receiptRoute(c.state.registration, admin)) {
    case 'terminal':
      c.log(`receipt printed on the terminal's own printer (${lines.length} lines)`);
      return { ok: true };
    case 'ecr-compiles':
      return { ok: true };
    case 'blocks':
      return acknowledged(c, command('printTextBlock', encodeFields([{ bmp: 0x06, value: textBlockData(lines) }])));
    case 'lines':
      for (const [index, line] of lines.entries()) {
        const ack = await acknowledged(c, command('printLine', printLineData(line, index === lines.length - 1)));
        if (!ack.ok) return ack;
      }
      return { ok: true };
  }
}

/** Hands the line back: Completion (06 0F); whatever its answer, what was stored stays. */
export async function complete(c: Conversation, data?: Buffer): Promise<void> {
  const reply = await c.tell(command('completion', data));
  if (!reply.answered) c.log(`completion not answered (${reply.why}); the transaction stands`);
}

/** Hands the line back with an error (06 1E): the result code, and the terminal's currency after 6F. */
export async function abort(c: Conversation, resultCode: number): Promise<void> {
  const data = resultCode === ERRORS.wrongCurrency ? Buffer.of(resultCode, 0x09, 0x78) : Buffer.of(resultCode);
  const reply = await c.tell(command('abort', data));
  if (!reply.answered) c.log(`abort not answered (${reply.why})`);
}

/** The transaction was not acknowledged: it is reversed by the terminal, noted, and left out of the turnover. */
export async function autoReverse(
  c: Conversation,
  transaction: StoredTransaction,
  ack: Ack & { ok: false },
  kind: string = transaction.kind,
): Promise<void> {
  const what = `${kind} trace ${transaction.trace} receipt ${transaction.receipt}, ${transaction.amount} minor units`;
  c.commit(noted(c.state, c.now().toISOString(), `auto-reversal of ${what}: ${ack.why}`));
  c.log(`AUTO-REVERSAL of ${what}: ${ack.why}`);
  if (!ack.lineWorks) return c.giveUpLine(ack.why);
  if ('exceeded' in ack) {
    const reply = await c.tell(command('statusInformation', Buffer.of(0x27, ERRORS.abortedByTimeoutOrKey)));
    if (!reply.answered) return;
  }
  await abort(c, ERRORS.abortedByTimeoutOrKey);
}

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
