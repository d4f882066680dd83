import { hex } from '../../protocol/frame.js';
import { bcdValue } from '../../protocol/zvt/bcd.js';
import { decodeFields, encodeFields, fieldOf } from '../../protocol/zvt/bitmaps.js';
import { command, CONFIG, ERRORS, isPositive } from '../../protocol/zvt/messages.js';
import { encodeApdu } from '../../protocol/zvt/apdu.js';
import type { Conversation, Reply } from './conversation.js';
import type { IssueOfGoods } from './requests.js';
import { printLineData, textBlockData } from './receipts.js';
import { noted, type Registration, type StoredTransaction } from './zvt-state.js';

// The steps every transaction of an emulated ZVT terminal is made of
// (PA00P015 §2): a message the cash register must acknowledge, status
// information sent again until it is, intermediate status, the receipt in
// the form the registration asked for, and the Completion or Abort that
// hands the line back, or the auto-reversal when an acknowledgement never
// came.

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
export async function deliverStatus(
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
