import { bcdNumber } from '../../protocol/zvt/bcd.js';
import { command, ERRORS, POSITIVE } from '../../protocol/zvt/messages.js';
import type { Conversation } from './conversation.js';
import { abort, acknowledged, complete, printReceipt, type Ack } from './flow-steps.js';
import { refuseByReceipt } from './flows.js';
import { transactionReceipt } from './receipts.js';
import { approvedStatus } from './status-information.js';
import {
  noted,
  openReservation,
  settleReservation,
  takeNumbers,
  type Reservation,
  type StoredTransaction,
} from './zvt-state.js';

// How a pre-authorisation (06 22, reserved in flows.ts) ends (PA00P015
// §2.10, §2.13, §2.14): booked in full or in part (06 24 with the amount
// used, 06 23 with the amount unused), the booking entering the turnover
// and the end of day's totals, or released whole (06 25). Money rule as
// for payments (§2.2.8): the booking stands only once the cash register
// has acknowledged its status information and receipt; otherwise the
// terminal takes it back and the reservation stays open, to be booked
// again. 06 23 with receipt FF FF asks which reservation is open first.

export interface BookingRequest {
  receipt: number;
  currencySent: boolean;
  /** 06 24: the amount used (the whole reservation when absent). */
  used?: number;
  /** 06 23: the amount not used, released. */
  unused?: number;
}

/** A receipt number that names no open reservation, or an amount beyond it: status information, then Abort. */
async function refuse(c: Conversation, code: number, request: BookingRequest, why: string): Promise<void> {
  c.log(`pre-authorisation ${request.receipt}: ${why} (${code.toString(16).toUpperCase()})`);
  await refuseByReceipt(c, code, request);
}

/** The next trace and receipt numbers, written to the terminal's memory before they are used. */
function newNumbers(c: Conversation): { trace: number; receipt: number } {
  const taken = takeNumbers(c.state);
  c.commit(taken.state);
  return taken;
}

const NOT_OPEN = 'no open pre-authorisation has this receipt number (unknown, booked or released)';

/** 06 23 03 87 FF FF: 06 1E B8 with the receipt number of the first open reservation, or FF FF (§2.10.1). */
export async function enquireOpenReservations(c: Conversation): Promise<void> {
  await c.answer(POSITIVE);
  const first = c.state.reservations[0];
  const receipt = first ? bcdNumber(first.receipt, 2) : Buffer.of(0xff, 0xff);
  c.log(`open pre-authorisations: ${c.state.reservations.map((open) => open.receipt).join(', ') || 'none'}`);
  const reply = await c.tell(command('abort', Buffer.concat([Buffer.of(ERRORS.preAuthorisation, 0x87), receipt])));
  if (!reply.answered) c.log(`the enquiry's answer was not taken (${reply.why})`);
}

/** 06 24 (the amount used) and 06 23 (the amount not used): what was used is booked, the rest released. */
export async function book(c: Conversation, request: BookingRequest): Promise<void> {
  await c.answer(POSITIVE);
  const reservation = openReservation(c.state, request.receipt);
  if (!reservation) return refuse(c, ERRORS.preAuthorisation, request, NOT_OPEN);
  const released = request.unused ?? reservation.amount - (request.used ?? reservation.amount);
  if (released < 0 || released > reservation.amount)
    return refuse(
      c,
      ERRORS.amountWrong,
      request,
      `${request.used ?? request.unused} is beyond the ${reservation.amount} reserved`,
    );
  if (released === reservation.amount) return settle(c, reservation, null, request.currencySent);
  const taken = newNumbers(c);
  const booking: StoredTransaction = {
    kind: 'booking',
    trace: taken.trace,
    receipt: taken.receipt,
    amount: reservation.amount - released,
    at: c.now().toISOString(),
    card: reservation.card,
    aid: reservation.aid,
    books: reservation.receipt,
  };
  await settle(c, reservation, booking, request.currencySent);
}

/** 06 25: the reservation released whole, nothing booked (a null filling). */
export async function release(c: Conversation, request: BookingRequest): Promise<void> {
  await c.answer(POSITIVE);
  const reservation = openReservation(c.state, request.receipt);
  if (!reservation) return refuse(c, ERRORS.preAuthorisation, request, NOT_OPEN);
  await settle(c, reservation, null, request.currencySent);
}

/**
 * The reservation's end on the line: status information (the amount booked, or for a release the amount released,
 * with the reservation's trace in bitmap 37), the receipt, then stored and Completion. Not acknowledged, nothing
 * is stored and the reservation stays open.
 */
async function settle(
  c: Conversation,
  reservation: Reservation,
  booking: StoredTransaction | null,
  currencySent: boolean,
): Promise<void> {
  // A release takes its numbers here; a booking took them before (written before they go on the line).
  const numbers = booking ?? newNumbers(c);
  const shown: StoredTransaction = {
    kind: booking ? 'booking' : 'reversal',
    trace: numbers.trace,
    receipt: numbers.receipt,
    amount: booking?.amount ?? reservation.amount,
    at: booking?.at ?? c.now().toISOString(),
    card: reservation.card,
    aid: reservation.aid,
  };
  const status = approvedStatus({
    transaction: shown,
    originalTrace: reservation.trace,
    currencySent,
    terminalId: c.state.terminalId,
  });
  const what = booking
    ? `booking of ${booking.amount} of pre-authorisation ${reservation.receipt}`
    : `release of pre-authorisation ${reservation.receipt}`;
  const delivered = await acknowledged(c, command('statusInformation', status));
  if (!delivered.ok) return notTaken(c, what, delivered);
  const lines = transactionReceipt(c.state.terminalId, { ...shown, kind: booking ? 'booking' : 'release' }, 0);
  const printed = await printReceipt(c, lines, false);
  if (!printed.ok) return notTaken(c, what, printed);
  c.commit(
    settleReservation(c.state, reservation.receipt, booking, {
      statusInformation: status.toString('hex'),
      lines,
      admin: false,
    }),
  );
  c.log(`${what} stored: receipt ${shown.receipt}, trace ${shown.trace}`);
  await complete(c);
}

/** The cash register did not take the booking or release: the terminal takes it back; the reservation stays open. */
async function notTaken(c: Conversation, what: string, ack: Ack & { ok: false }): Promise<void> {
  c.commit(
    noted(c.state, c.now().toISOString(), `auto-reversal of the ${what}: ${ack.why}; the reservation stays open`),
  );
  c.log(`AUTO-REVERSAL of the ${what}: ${ack.why}; the reservation stays open`);
  if (!ack.lineWorks) return c.giveUpLine(ack.why);
  await abort(c, ERRORS.abortedByTimeoutOrKey);
}
